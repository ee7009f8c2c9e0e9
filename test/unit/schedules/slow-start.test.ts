/**
 * A schedule whose job is slow to start (server/core/schedules/schedules.ts): the run that comes
 * due while the last run's job is still being started waits its turn, then is `skipped`, "still
 * running", naming that job; it does not start a second one beside it. On a fake clock the test
 * moves, with the real store on a real SQLite file and the real feed; the jobs are the few fields
 * a schedule reads of a row.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { OpArgs, Row } from "../../../sdk/ts/protocol/index.js";
import { Clock } from "../../../server/core/clock.js";
import { Feed } from "../../../server/core/feed.js";
import type { LiveJob } from "../../../server/core/jobs/index.js";
import { Pushes } from "../../../server/core/pushes.js";
import { Schedules } from "../../../server/core/schedules/schedules.js";
import { Secrets } from "../../../server/secrets.js";
import { Store } from "../../../server/store/store.js";
import { FakeTime } from "../../helpers/fake-time.js";

const T0 = Date.parse("2026-03-02T08:00:00.000Z");
const ACTOR = { who: "test", whoId: null };

let dir: string;
let store: Store;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-schedules-"));
  store = new Store(path.join(dir, "roost.db"));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A dispatch the test lets finish: each call waits for its `release`. */
function heldDispatch() {
  const jobs = new Map<string, LiveJob>();
  const calls: { args: OpArgs<"dispatch">; release: () => void }[] = [];
  const dispatch = (args: OpArgs<"dispatch">) =>
    new Promise<{ job: Row }>((resolve) => {
      calls.push({
        args,
        release: () => {
          const id = `j${jobs.size + 1}`;
          // What a schedule reads of a job: that it runs, as a protocol agent not yet done.
          jobs.set(id, {
            rec: { id, life: "running", launch: { protocol: true }, report: null },
            pending: 0,
          } as never);
          resolve({ job: { id } as Row });
        },
      });
    });
  return { jobs, calls, dispatch };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

it("a run due while the last one's job is still being started waits, then is skipped, naming that job", async () => {
  const time = new FakeTime(T0);
  const held = heldDispatch();
  const pushes = new Pushes();
  const schedules = new Schedules(
    {
      store,
      pushes,
      feed: new Feed(store, pushes, new Secrets()),
      registry: { find: (id) => held.jobs.get(id) },
      dispatch: held.dispatch,
      checkLaunch: () => ({ cwd: dir, name: null }),
      stop: async () => {},
      keeps: () => false,
    },
    new Clock(time),
  );
  schedules.start();
  const { id } = await schedules.add({ when: "every 1m", launch: { profile: "p", task: "t" } }, ACTOR);

  time.advance(60_000); // the first run: its job is being started
  await settle();
  expect(held.calls).toHaveLength(1);
  time.advance(60_000); // the second run comes due meanwhile
  await settle();
  expect(held.calls).toHaveLength(1); // it waits: no second job is started beside the first
  held.calls[0]!.release();
  await settle();
  await settle();
  expect(held.calls).toHaveLength(1);
  const runs = schedules.list().find((s) => s.id === id)!.runs;
  expect(runs.map((r) => [r.at, r.outcome, r.job, r.why ?? null])).toEqual([
    ["2026-03-02T08:01:00.000Z", "started", "j1", null],
    ["2026-03-02T08:02:00.000Z", "skipped", "j1", "still running"],
  ]);
});
