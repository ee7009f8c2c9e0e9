/**
 * A thousand jobs: 1,000 terminal jobs (a profile of roost.json's running `sleep 600`) dispatched
 * over the socket, 50 dispatches in flight on one hub connection, timed from the first request to
 * the last answer; every job is then checked to be running. The baseline: the same 1,000
 * `sleep 600` spawned in pseudo-terminals by node-pty from the benchmark's own process, with its
 * environment (node-pty's spawn is synchronous: they are spawned one after another, which is what
 * a pty host does too). The difference is what roost adds to a process in a pty: the
 * job's row and its commit, its directory and transcript, the pty host's round trip, the screen.
 *
 * Rounds: a fresh daemon each (its home empty), the baseline before or after it by turns.
 * BENCH_THOUSAND_JOBS=300 runs fewer, for a quick look (a profile: `--profile`).
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type IPty, spawn as ptySpawn } from "@lydell/node-pty";
import { type Figure, info, underTarget, withBaseline, withRounds } from "../figures.js";
import { BenchDaemon, sleep, startProfiledHost, stopProfiledHost } from "../harness.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { cpuMs, median, percentile, round } from "../stats.js";

const JOBS = Number(process.env.BENCH_THOUSAND_JOBS) || 1000;
const IN_FLIGHT = 50;
const ROUNDS = 2;
const TARGET_S = 10;
const CONFIG = { agentProfiles: { stay: { command: ["sleep", "600"], task: "type" } } };

interface RoostRound {
  seconds: number;
  perSecond: number;
  answerP50Ms: number;
  answerP99Ms: number;
  daemonCpuMs: number;
  hostCpuMs: number;
}

/** 1,000 dispatches, IN_FLIGHT at a time; every job running at the end. */
async function viaRoost(ctx: ScenarioContext): Promise<RoostRound> {
  const d = BenchDaemon.create({ config: CONFIG, profileDir: ctx.profileDir });
  // With --profile, the pty host's side too: where a spawn's time goes there.
  const profiledHost = ctx.profileDir
    ? await startProfiledHost(d, path.join(ctx.profileDir, "pty-host"))
    : null;
  try {
    await d.start();
    const hub = await d.connect();
    try {
      const answers: number[] = [];
      const c0 = cpuMs(d.pid);
      const t0 = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < JOBS) {
          next++;
          const s = performance.now();
          await hub.ok("dispatch", { profile: "stay" });
          answers.push(performance.now() - s);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      const ms = performance.now() - t0;
      const daemonCpuMs = cpuMs(d.pid) - c0;
      // The pty host is started on the first dispatch: all its CPU time is the run's.
      const host = d.ptyHostPid();
      if (!host) throw new Error("the daemon started no pty host");
      const hostCpuMs = cpuMs(host);
      const { rows } = (await hub.ok("list", {})) as { rows: { life: string }[] };
      const running = rows.filter((r) => r.life === "running").length;
      if (running !== JOBS) throw new Error(`${running} of ${JOBS} jobs are running`);
      return {
        seconds: round(ms / 1000, 2),
        perSecond: round((JOBS * 1000) / ms, 1),
        answerP50Ms: round(median(answers), 1),
        answerP99Ms: round(percentile(answers, 99), 1),
        daemonCpuMs: round(daemonCpuMs, 0),
        hostCpuMs: round(hostCpuMs, 0),
      };
    } finally {
      hub.close();
    }
  } finally {
    await d.stop();
    if (profiledHost) await stopProfiledHost(profiledHost);
    d.cleanup();
  }
}

/** The same 1,000 processes in ptys, spawned by node-pty here; then killed by pid. */
async function bare(): Promise<number> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const ptys: IPty[] = [];
  try {
    const t0 = performance.now();
    for (let i = 0; i < JOBS; i++) {
      ptys.push(
        ptySpawn("sleep", ["600"], { name: "xterm-256color", cwd: process.cwd(), cols: 80, rows: 24, env }),
      );
      // What the pty host does between spawns: back to its event loop (its reads, its next request).
      if (i % IN_FLIGHT === IN_FLIGHT - 1) await new Promise((r) => setImmediate(r));
    }
    return performance.now() - t0;
  } finally {
    // Killed by pid; node-pty closes each one's master once its exit is seen.
    const exited = ptys.map((p) => new Promise<void>((resolve) => p.onExit(() => resolve())));
    for (const p of ptys) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {}
    }
    await Promise.race([Promise.all(exited), sleep(10000)]);
  }
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const rounds: { roost: RoostRound; bareSeconds: number; ratio: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let roost: RoostRound;
    let bareMs: number;
    if (r % 2 === 0) {
      roost = await viaRoost(ctx);
      await sleep(1000);
      bareMs = await bare();
    } else {
      bareMs = await bare();
      await sleep(1000);
      roost = await viaRoost(ctx);
    }
    const bareSeconds = round(bareMs / 1000, 2);
    const ratio = round(roost.seconds / bareSeconds, 2);
    rounds.push({ roost, bareSeconds, ratio });
    ctx.log(
      `round ${r + 1}: ${JOBS} dispatches in ${roost.seconds} s (${roost.perSecond}/s; answered p50 ` +
        `${roost.answerP50Ms} ms, p99 ${roost.answerP99Ms} ms; daemon CPU ${roost.daemonCpuMs} ms, ` +
        `pty host ${roost.hostCpuMs} ms); bare ptys ${bareSeconds} s`,
    );
    await sleep(1000);
  }
  const S = "thousand";
  const of = (f: (x: (typeof rounds)[number]) => number) => rounds.map(f);
  const seconds = median(of((x) => x.roost.seconds));
  const figures: Figure[] = [
    withRounds(
      withBaseline(
        S,
        `${JOBS} dispatches, ${IN_FLIGHT} in flight (bare: spawned in ptys)`,
        "s",
        seconds,
        median(of((x) => x.bareSeconds)),
        median(of((x) => x.ratio)),
      ),
      of((x) => x.roost.seconds),
    ),
    underTarget(S, `${JOBS} dispatches, total`, "s", seconds, TARGET_S),
    withRounds(
      info(S, "jobs dispatched a second", "/s", median(of((x) => x.roost.perSecond))),
      of((x) => x.roost.perSecond),
    ),
    info(S, "a dispatch answered, p50", "ms", median(of((x) => x.roost.answerP50Ms))),
    info(S, "a dispatch answered, p99", "ms", median(of((x) => x.roost.answerP99Ms))),
    info(S, "daemon CPU per job", "ms", round(median(of((x) => x.roost.daemonCpuMs)) / JOBS, 2)),
    info(S, "pty host CPU per job", "ms", round(median(of((x) => x.roost.hostCpuMs)) / JOBS, 2)),
  ];
  return {
    figures,
    detail: { jobs: JOBS, inFlight: IN_FLIGHT, command: CONFIG.agentProfiles.stay.command, rounds },
  };
}

export const thousand: Scenario = {
  name: "thousand",
  aliases: ["dispatch-thousand"],
  title: `a thousand jobs: ${JOBS} terminal jobs dispatched, ${IN_FLIGHT} in flight, against the same processes spawned in ptys`,
  run,
};
