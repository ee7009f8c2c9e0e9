/**
 * How the concierge starts and is woken (docs/protocol.md, "The concierge"), through the socket of
 * a real daemon: whatever profile runs it, its agent is told it is the concierge (its tools) and
 * given its prompt; roost's own (pi) takes roost.json's `pi` profile; a policy change wakes it for
 * the questions already waiting. The concierge is an inert job spoken for by a raw client
 * (helpers/concierge.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CONCIERGE_PROMPT } from "../../server/core/concierge/concierge.js";
import { PI_EXTENSION } from "../../server/paths.js";
import { nextDelivery, session } from "../helpers/board.js";
import { ackItem, blockedOn, CONFIG, conciergeOn, digests } from "../helpers/concierge.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { procEnv, row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let hub: RawClient;

beforeAll(async () => {
  d = await startDaemon({ config: CONFIG });
  hub = await d.client();
});
afterAll(async () => d?.cleanup());
afterEach(async () => {
  const { rows } = await hub.ok("list");
  await Promise.all(rows.map((r: any) => hub.ok("rm", { id: r.id })));
  await hub.ok("concierge", { action: "answer", answer: "never" });
});

describe("a concierge from a profile", () => {
  it("is told it is the concierge (ROOST_CONCIERGE, its role) and given the concierge's prompt as its first task", async () => {
    const c = await conciergeOn(d, hub);
    const r = await row(hub, c.id);
    expect(r).toMatchObject({ role: "concierge", profile: "inert" });
    await until("told it is the concierge", () => procEnv(r.pid).ROOST_CONCIERGE === "1");
    const first = await nextDelivery(c, 1);
    expect(first).toMatchObject({ seq: 1, text: CONCIERGE_PROMPT });
  });
});

describe("roost's own concierge (pi)", () => {
  it("takes roost.json's pi profile: its arguments and environment, with roost's extension and ROOST_CONCIERGE", async () => {
    // A stand-in for pi that keeps its arguments: the concierge's command is the pi profile's.
    // Written aside and renamed, so the test never reads the file between its creation and write.
    const script =
      'printf "%s\\n" "$@" > "$ROOST_JOB_DIR/argv.new"; mv "$ROOST_JOB_DIR/argv.new" "$ROOST_JOB_DIR/argv"; exec sleep 600';
    const own = await startDaemon({
      config: {
        agentProfiles: {
          pi: {
            command: ["bash", "-c", script, "pi", "--model", "scripted/fast"],
            task: "type",
            protocol: true,
            env: { PI_SETTING: "from roost.json" },
          },
        },
      },
    });
    try {
      const c = await own.client();
      const { id } = await c.ok("concierge", { action: "on" });
      const r = await untilRow(c, id, "running", (x) => x.life === "running" && x.pid);
      expect(r).toMatchObject({ role: "concierge", profile: "concierge", pending: 1 });
      // Read once its program runs (the pid may be the terminal's, a moment before).
      const env = await until("its program's environment", () => {
        const e = procEnv(r.pid);
        return e.ROOST_JOB_DIR ? e : undefined;
      });
      expect(env).toMatchObject({ ROOST_CONCIERGE: "1", PI_SETTING: "from roost.json" });
      const argv = await until("its arguments", () => {
        const file = path.join(env.ROOST_JOB_DIR!, "argv");
        return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n") : undefined;
      });
      expect(argv).toEqual(["--model", "scripted/fast", "-e", PI_EXTENSION]);
    } finally {
      await own.cleanup();
    }
  });
});

describe("a policy change", () => {
  it("wakes the concierge with the questions already waiting: a digest, why policy, naming them", async () => {
    const a = await session(d, hub, "asker");
    await blockedOn(a, "Run the migration?", ["yes", "no"]);
    const c = await conciergeOn(d, hub);
    const start = await c.c.waitFor(() => digests(c)[0], "the start digest");
    expect(start.why).toBe("start");
    await ackItem(c, start.seq);
    await hub.ok("concierge", { action: "answer", answer: "routine" });
    const woken = await c.c.waitFor(() => digests(c)[1], "the policy's digest");
    expect(woken.why).toBe("policy");
    expect(woken.text).toContain("Run the migration?");
    expect(woken.text).toContain("answer: routine, act: false");
    // With the policy it woke for, it answers.
    const { answered } = await c.c.ok("concierge-reply", {
      id: a.id,
      text: "yes",
      why: "routine: a dev database",
    });
    expect(answered).toMatchObject({ id: a.id, text: "yes" });
  });
});
