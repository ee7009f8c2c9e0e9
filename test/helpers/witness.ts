/**
 * The socket tests' witness (wire.test.ts, limits.test.ts): a well-behaved client of the daemon
 * under test, which must be answered normally whatever the tests' other clients send; checked
 * after each test.
 */
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { type DaemonOptions, isAlive, startDaemon, type TestDaemon } from "./daemon.js";
import { silentProfile } from "./jobs.js";
import type { RawClient } from "./raw-client.js";

/** The daemon is alive, and answers the witness (how fast is the benchmark's business). */
export async function expectServing(d: TestDaemon, witness: RawClient): Promise<void> {
  expect(d.proc!.exitCode).toBeNull();
  expect(d.proc!.signalCode).toBeNull();
  expect(isAlive(d.pid)).toBe(true);
  const r = await witness.request("list", {});
  expect(r.ok).toBe(true);
  expect(Array.isArray(r.result.rows)).toBe(true);
}

/**
 * A daemon for the tests of the file or describe that calls this (by default with `inert`, a
 * protocol profile whose program never speaks), and its witness: both set before those tests, the
 * daemon serving checked after each, and killed after them all.
 */
export function witnessedDaemon(
  opts: DaemonOptions = { config: { agentProfiles: { inert: silentProfile() } } },
): { d: TestDaemon; witness: RawClient } {
  const served = {} as { d: TestDaemon; witness: RawClient };
  beforeAll(async () => {
    served.d = await startDaemon(opts);
    served.witness = await served.d.client();
  });
  afterAll(async () => served.d?.cleanup());
  afterEach(async () => expectServing(served.d, served.witness));
  return served;
}
