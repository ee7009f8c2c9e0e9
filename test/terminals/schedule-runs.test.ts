/**
 * Schedules that run again (docs/protocol.md, "Schedules", "A run's end"), on a real daemon whose
 * clock runs ten times as fast (ROOST_TEST_CLOCK: a minute every 6 s), with real shells in real
 * terminals: `roost schedule add 'every 1m' shell 'date'` runs again and again, each run's job
 * stopped once it came to rest, its end recorded; with --keep (or a profile's `keep`) the job stays
 * and the runs after it skip, three skips raising the schedule as needing the user, until a run
 * starts again; a protocol agent's run is over when it says done.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INERT, session } from "../helpers/board.js";
import { json, needsBuild, ok, PLAIN_SHELL } from "../helpers/cli.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

beforeAll(needsBuild);

const WAIT = 120_000;

let d: TestDaemon;
let c: RawClient;
beforeAll(async () => {
  d = await startDaemon({
    env: { ...PLAIN_SHELL, ROOST_TEST_CLOCK: "rate=10" },
    config: {
      agentProfiles: {
        inert: INERT,
        // A shell whose jobs stay once their run is over: the profile says keep.
        kept: { command: ["/bin/sh"], keep: true },
      },
    },
  });
  c = await d.client();
});
afterAll(async () => d?.cleanup());

const scheduleOf = async (id: string) =>
  (await c.ok("schedules")).schedules.find((s: { id: string }) => s.id === id);

const feedTexts = async (id: string): Promise<string[]> =>
  (await c.ok("events", { id })).events.map((e: { text: string }) => e.text);

/** `roost schedule add ARGS...`: the schedule's id. */
async function added(args: string[]): Promise<string> {
  const said = await ok(["schedule", "add", ...args], d.env, "/tmp");
  const m = /^added (s\d+) /.exec(said);
  if (!m) throw new Error(`roost schedule add said: ${said}`);
  return m[1]!;
}

describe("a scheduled run is over when its job comes to rest", () => {
  it("every 1m shell 'date' runs three times: each job ran its task, came to rest, was stopped, recorded", async () => {
    const id = await added(["every 1m", "shell", "date", "--name", "clock"]);
    const ended = await until(
      "three runs over",
      async () => {
        const runs = (await scheduleOf(id)).runs.filter((r: any) => r.outcome === "started" && r.ended);
        return runs.length >= 3 ? runs : undefined;
      },
      WAIT,
    );
    await c.ok("schedule-pause", { id, paused: true });
    const jobs = new Set(ended.map((r: any) => r.job));
    expect(jobs.size).toBe(ended.length); // a job of its own each time
    for (const run of ended) {
      expect(run.ended.how).toBe("came to rest; stopped");
      expect(Date.parse(run.ended.at)).toBeGreaterThan(Date.parse(run.at));
      const job = await untilRow(c, run.job, "stopped", (r) => r.life === "stopped");
      expect(job.profile).toBe("shell");
      // It ran its task before it was stopped: the date is on its screen.
      const log = await ok(["log", run.job, "--plain"], d.env);
      expect(log).toMatch(/\d\d:\d\d:\d\d/);
    }
    const texts = await feedTexts(id);
    for (const run of ended) {
      expect(texts).toContain(`clock: started ${run.job}`);
      expect(texts).toContain(`clock: ${run.job}'s run is over: came to rest; stopped`);
    }
    const schedule = await scheduleOf(id);
    expect(schedule.needsYou).toBeNull();
    await c.ok("schedule-rm", { id });
  });

  it("kept (--keep, or a profile's keep): the job stays, the runs after it skip, three skips need the user", async () => {
    const byOption = await added(["every 1m", "shell", "date", "--keep", "--name", "kept by option"]);
    const byProfile = await added(["every 1m", "kept", "date", "--name", "kept by profile"]);
    for (const [id, name] of [
      [byOption, "kept by option"],
      [byProfile, "kept by profile"],
    ] as const) {
      const schedule = await until(
        `${id} needs the user`,
        async () => {
          const s = await scheduleOf(id);
          return s.needsYou && s.runs[0]?.ended ? s : undefined;
        },
        WAIT,
      );
      const [first] = schedule.runs;
      expect(first).toMatchObject({ outcome: "started", ended: { how: "came to rest; kept (keep: true)" } });
      expect((await row(c, first.job)).life).toBe("running");
      expect(schedule.skips).toBeGreaterThanOrEqual(3);
      expect(schedule.runs.slice(1, 4)).toEqual(
        [1, 2, 3].map((i) => ({
          at: schedule.runs[i].at,
          job: first.job,
          outcome: "skipped",
          why: "still running",
        })),
      );
      expect(schedule.needsYou).toBe(`skipped ${schedule.skips} times: ${first.job} still running`);
      // Said once, as it came to three.
      await c.ok("schedule-pause", { id, paused: true });
      const needs = (await feedTexts(id)).filter((t) => t.includes("needs you"));
      expect(needs).toEqual([`${name}: needs you: skipped 3 times: ${first.job} still running`]);
      // `roost schedule` says why.
      const listed = await ok(["schedule"], { ...d.env, COLUMNS: "250" });
      expect(listed).toMatch(
        new RegExp(`^${id} .*needs you: skipped \\d+ times: ${first.job} still running`, "m"),
      );
      // A run that starts a job again ends the need.
      await c.ok("stop", { id: first.job });
      await c.ok("schedule-run", { id });
      const after = await scheduleOf(id);
      expect(after.skips).toBe(0);
      expect(after.needsYou).toBeNull();
      expect((await json(["schedule"], d.env)).schedules.find((s: any) => s.id === id).needsYou).toBeNull();
      await c.ok("schedule-rm", { id });
    }
  });

  it("a protocol agent's run is over when it says done: recorded, and the job stopped", async () => {
    const { schedule } = await c.ok("schedule-add", {
      when: "every 1m",
      launch: { profile: "inert", task: "the report", cwd: "/tmp" },
    });
    const started = await until(
      "a run started",
      async () => (await scheduleOf(schedule.id)).runs.find((r: any) => r.outcome === "started"),
      WAIT,
    );
    await c.ok("schedule-pause", { id: schedule.id, paused: true });
    const agent = await session(d, c, "the report", { id: started.job });
    try {
      // Working is not the end of its run: only done is.
      expect((await scheduleOf(schedule.id)).runs[0].ended).toBeUndefined();
      await agent.c.ok("report", {
        id: agent.id,
        token: agent.token,
        report: { state: "done", summary: "wrote it" },
      });
      await untilRow(c, started.job, "stopped", (r) => r.life === "stopped");
      const run = (await scheduleOf(schedule.id)).runs[0];
      expect(run.ended.how).toBe("said done; stopped");
    } finally {
      agent.c.close();
    }
  });
});
