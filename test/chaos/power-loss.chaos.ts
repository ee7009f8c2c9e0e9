/**
 * A power loss, simulated: the daemon killed, its store's WAL cut back to the size of its last
 * completed sync (what the disk is known to hold; everything after it is lost, the worst a power
 * cut can do), then a restart. The daemon runs with ROOST_TEST_SYNC_LOG (test only): no WAL
 * checkpoints, so the WAL only grows, and each sync logs the WAL's size when it began.
 *
 * What must hold: every reply answered `saved` is still there after each cut and is handled once
 * (a reply answered before its sync would be gone; worse, its seq given to the next reply, which
 * the agent, having kept the first in agent.json, would skip as handled: the ledger sees both).
 * The agents and the pty host live on: the cut is the store's alone.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { sleep } from "../helpers/processes.js";
import { CHAOS_AGENT, caseSeed, faultPlan, moreFaults, once, Random, reportCase, rowOf } from "./chaos.js";
import { HubLoad } from "./hub-load.js";
import { checkLedger } from "./ledger.js";

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

/** The daemon is dead: its WAL back to the last synced size, the index SQLite rebuilds dropped. */
function cutPower(home: string, syncLog: string): { kept: number; lost: number } {
  const sizes = fs.readFileSync(syncLog, "utf8").trim().split("\n");
  const kept = Number(sizes.at(-1));
  const wal = path.join(home, "roost.db-wal");
  const before = fs.statSync(wal).size;
  fs.truncateSync(wal, kept);
  fs.rmSync(path.join(home, "roost.db-shm"), { force: true });
  return { kept, lost: before - kept };
}

describe("power loss", () => {
  it("every reply answered saved survives the WAL cut back to its last sync, and is handled once", async () => {
    const seed = caseSeed(4);
    const rand = new Random(seed);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-test-"));
    const syncLog = path.join(home, "synced-sizes.log");
    const daemon = await startDaemon({
      home,
      config: { agentProfiles: { chaos: CHAOS_AGENT } },
      env: { ROOST_TEST_SYNC_LOG: syncLog },
    });
    d = daemon;
    expect(daemon.output).toContain("ROOST_TEST_SYNC_LOG is set (for tests only)");
    const tasks = new Map<string, string>();
    for (let i = 1; i <= 3; i++) {
      const { job } = await once(daemon, "dispatch", { profile: "chaos", task: `w start-${i}` });
      tasks.set(job.id, `w start-${i}`);
    }
    const jobs = [...tasks.keys()];
    for (const id of jobs) await until(`${id} connected`, async () => (await rowOf(daemon, id)).connected);

    const load = new HubLoad({ socket: daemon.socket, jobs, hubs: 3, tasks: 0, seed, paceMs: 5 });
    load.start();
    const plan = faultPlan(10);
    let cuts = 0;
    let bytesLost = 0;
    for (; moreFaults(plan, cuts); cuts++) {
      await sleep(rand.int(200, 1200));
      await daemon.kill("SIGKILL");
      bytesLost += cutPower(home, syncLog).lost;
      await daemon.start();
    }
    await load.stop();
    let own = 0;
    for (const id of jobs) await load.send(0, id, `w final-${++own}`, own);
    await until(
      "every job caught up",
      async () => {
        for (const id of jobs) if ((await rowOf(daemon, id)).pending !== 0) return false;
        return true;
      },
      120_000,
    );
    const ledger = checkLedger({ home, jobs, saved: load.saved, tasks, killed: new Set() });
    reportCase("power loss (the WAL cut back to its last sync)", seed, {
      cuts,
      walBytesCut: bytesLost,
      repliesSaved: load.saved.length,
      resent: load.resent,
      repliesHandled: ledger.repliesHandled,
      problems: ledger.problems.length,
    });
    expect(ledger.problems).toEqual([]);
    expect(bytesLost).toBeGreaterThan(0); // the cuts took something each time, or the case shows nothing
  });
});
