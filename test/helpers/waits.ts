/**
 * Waits on events, not on fixed sleeps: a test that asserts nothing happened asserts it once
 * something later has happened that proves the daemon got that far.
 */
import { untilRow } from "./jobs.js";
import type { RawClient } from "./raw-client.js";

let marks = 0;

/**
 * Waits until `n` quiet spells of `other` have passed, one after the other: each, a command typed
 * into it runs and its row turns idle. `other` is a shell job in the same daemon and pty host, as
 * quick to turn quiet as the job under test. A quiet spell of that job, or the typist's wait on
 * it, begun before, has ended by then, and been told: the host's timers and the daemon's fire
 * soonest first, and what the host tells the daemon comes in order.
 */
export async function quietSpellsPassed(c: RawClient, other: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await untilRow(c, other, "idle", (r) => r.status === "idle" && r.pending === 0);
    const mark = `spell-${++marks}`;
    await c.ok("reply", { id: other, text: `echo ${mark}` });
    await untilRow(
      c,
      other,
      `${mark} run`,
      (r) => r.summary === mark && r.status === "idle" && r.pending === 0,
    );
  }
}
