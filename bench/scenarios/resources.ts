/**
 * Resources: the pty host's pass over /proc (server/pty/resources.ts) for 1,000 jobs, each a real
 * process that is the leader of a session of its own (`sleep`, started with setsid as node-pty
 * starts a job), timed in this process: the median of several passes, as a share of one core at
 * the host's 5 s interval. Beside it, in the same run, the bare floor (readdir /proc and nothing
 * else) and a pass that reads PSS too (smaps_rollup of every process: roost takes it every sixth
 * pass, so the cost per interval is the mix of five passes without and one with).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { PSS_EVERY, RESOURCES_INTERVAL_MS, ResourcePass } from "../../server/pty/resources.js";
import { type Figure, info, underTarget, withBaseline } from "../figures.js";
import { sleep } from "../harness.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { median, round } from "../stats.js";

const JOBS = 1000;
const PASSES = 9;
const TARGET_PERCENT = 1;

const timed = (f: () => void): number => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const pids: number[] = [];
  try {
    for (let i = 0; i < JOBS; i++) {
      // detached: setsid, so each is a session leader, as each job is.
      const child = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
      child.unref();
      if (child.pid) pids.push(child.pid);
    }
    await sleep(500);
    const alive = pids.filter((pid) => fs.existsSync(`/proc/${pid}/stat`)).length;
    if (alive !== JOBS) throw new Error(`${alive} of ${JOBS} sleeps are running`);
    const processes = fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e)).length;
    ctx.log(`${JOBS} session leaders running; ${processes} processes on the machine`);
    const leaders = pids.map((pid, i) => ({ jobId: `j${i + 1}`, pid }));

    const floor: number[] = [];
    const plain: number[] = [];
    const withPss: number[] = [];
    const pass = new ResourcePass();
    pass.take(leaders, false); // warm: the first read of each file, the JIT
    let seen = 0;
    for (let i = 0; i < PASSES; i++) {
      floor.push(timed(() => fs.readdirSync("/proc")));
      plain.push(
        timed(() => {
          seen = pass.take(leaders, false).filter((r) => r.procs === 1).length;
        }),
      );
      withPss.push(timed(() => pass.take(leaders, true)));
    }
    if (seen !== JOBS) throw new Error(`the pass found ${seen} of ${JOBS} jobs`);
    const share = (ms: number) => (ms / RESOURCES_INTERVAL_MS) * 100;
    const ms = { floor: median(floor), plain: median(plain), pss: median(withPss) };
    const mixed = (ms.plain * (PSS_EVERY - 1) + ms.pss) / PSS_EVERY;
    ctx.log(
      `pass: ${round(ms.plain, 1)} ms (readdir alone ${round(ms.floor, 2)} ms), with PSS ${round(ms.pss, 1)} ms`,
    );
    const S = "resources";
    const figures: Figure[] = [
      underTarget(
        S,
        `one core at a ${RESOURCES_INTERVAL_MS / 1000} s interval, ${JOBS} jobs (PSS every ${PSS_EVERY}th pass)`,
        "%",
        round(share(mixed), 3),
        TARGET_PERCENT,
      ),
      withBaseline(
        S,
        "a pass (stat of every process), beside readdir /proc alone",
        "ms",
        round(ms.plain, 2),
        round(ms.floor, 2),
      ),
      info(S, "a pass that reads PSS too (smaps_rollup of each)", "ms", round(ms.pss, 2)),
      info(S, "every pass with PSS: one core", "%", round(share(ms.pss), 3)),
    ];
    return {
      figures,
      detail: { jobs: JOBS, processes, passes: PASSES, ms: { floor, plain, withPss }, mixedMs: mixed },
    };
  } finally {
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  }
}

export const resourcesScenario: Scenario = {
  name: "resources",
  aliases: [],
  title: "Resources: the pty host's pass over /proc for 1,000 jobs",
  run,
};
