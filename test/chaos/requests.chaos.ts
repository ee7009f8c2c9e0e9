/**
 * One requestId sent at once from several connections, and again after a kill -9 of the daemon:
 * one side effect (one job, one reply), and every answer the same one.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { handled } from "../helpers/jobs.js";
import { RawClient } from "../helpers/raw-client.js";
import { CHAOS_AGENT, caseSeed, faultPlan, moreFaults, once, Random, reportCase, rowOf } from "./chaos.js";

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

/** `op` with `args` from `n` connections in the same moment: their answers. */
async function together(daemon: TestDaemon, n: number, op: string, args: unknown) {
  const conns = await Promise.all(Array.from({ length: n }, () => RawClient.connect(daemon.socket)));
  try {
    // Written back to back, before any answer can come: the daemon reads them in one turn or a few.
    const asked = conns.map((c) => c.request(op, args));
    return await Promise.all(asked);
  } finally {
    for (const c of conns) c.close();
  }
}

describe("requestIds resent concurrently from several connections", () => {
  it("dispatch and reply: one job, one reply, the same answer to every sender, before and after a kill -9", async () => {
    const seed = caseSeed(5);
    const rand = new Random(seed);
    const daemon = await startDaemon({ config: { agentProfiles: { chaos: CHAOS_AGENT } } });
    d = daemon;
    const plan = faultPlan(6);
    let rounds = 0;
    let senders = 0;
    for (; moreFaults(plan, rounds); rounds++) {
      const n = rand.int(2, 8);
      senders += n;
      const before = (await once(daemon, "list", {})).rows.length;
      const dispatch = {
        profile: "chaos",
        task: `w task-${rounds}`,
        requestId: `dispatch-${seed}-${rounds}`,
      };
      const answers = await together(daemon, n, "dispatch", dispatch);
      expect(answers.every((a) => a.ok)).toBe(true);
      const id = answers[0]!.result.job.id;
      expect(answers.map((a) => a.result.job.id)).toEqual(Array(n).fill(id));
      expect(answers.filter((a) => !a.result.duplicate)).toHaveLength(1);
      await until(`${id} connected`, async () => (await rowOf(daemon, id)).connected);

      const reply = { id, text: `w reply-${rounds}`, requestId: `reply-${seed}-${rounds}` };
      const replies = await together(daemon, n, "reply", reply);
      expect(replies.every((a) => a.ok && a.result.saved)).toBe(true);
      expect(replies.filter((a) => !a.result.duplicate)).toHaveLength(1);

      // The same ids after a kill -9: still the same job, and no second reply.
      await daemon.kill("SIGKILL");
      await daemon.start();
      const again = await together(daemon, rand.int(1, 4), "dispatch", dispatch);
      expect(again.map((a) => [a.result.job.id, a.result.duplicate])).toEqual(again.map(() => [id, true]));
      const replyAgain = await together(daemon, rand.int(1, 4), "reply", reply);
      expect(replyAgain.every((a) => a.result.duplicate === true)).toBe(true);

      expect((await once(daemon, "list", {})).rows.length).toBe(before + 1);
      await until(`${id} took its reply`, async () => (await rowOf(daemon, id)).pending === 0);
      const texts = handled(daemon, id).map((h) => h.text);
      expect(texts).toEqual([`w task-${rounds}`, `w reply-${rounds}`]);
    }
    reportCase("one requestId from several connections at once", seed, {
      rounds,
      senders,
      sideEffects: rounds * 2,
    });
  });
});
