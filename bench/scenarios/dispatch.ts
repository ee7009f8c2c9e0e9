/**
 * Dispatch: the `dispatch` request for the Python example agent (the built-in profile
 * `example-py`) → its first report arriving at the daemon; against the same agent started by hand
 * (`python3 sdk/examples/example_agent.py`, spawned by the benchmark) → its first report arriving
 * at the same daemon. The difference is what roost adds to starting an agent: the dispatch op
 * (the job's row and its commit, its directory), the pty host's spawn in a pseudo-terminal, and
 * the environment it builds.
 *
 * The hand-started agent needs a job to speak for: an inert job (`sleep 600`) dispatched before
 * its round, untimed; the agent gets that job's environment exactly (read from its process's
 * /proc/<pid>/environ: the same variables a job gets, its token, socket and directory), and its
 * working directory. "Arrived" is seen the same way on both sides: a hub subscribed to the rows
 * gets the job's row with `kind: "protocol"`, which the first report sets.
 *
 * Rounds alternate which side goes first; the first round is a warm-up (Python's files into the
 * page cache) and is not counted. The overhead is the median of each round's own difference.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type Figure, info, underTarget, withBaseline } from "../figures.js";
import { BenchDaemon, dispatchInert, procEnv, ROOT, sleep, track, until } from "../harness.js";
import type { Conn } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { cpuMs, median, percentile, round } from "../stats.js";

const ROUNDS = 15;
const TARGET_MS = 100;
const AGENT = path.join(ROOT, "sdk/examples/example_agent.py");

/** The first time each job's row came as a protocol row (its first report), on the benchmark's clock. */
class FirstReports {
  private readonly at = new Map<string, number>();

  constructor(hub: Conn) {
    hub.onEvent = (e: { event: string; row?: { id: string; kind: string } }) => {
      if (e.event === "row" && e.row!.kind === "protocol" && !this.at.has(e.row!.id))
        this.at.set(e.row!.id, performance.now());
    };
  }

  wait(id: string): Promise<number> {
    return until(`${id}'s first report`, () => this.at.get(id), 15000);
  }
}

interface Side {
  /** Start (the dispatch request sent, or the spawn) → the first report seen. */
  ms: number;
  /** The daemon's CPU time meanwhile (in clock ticks of 10 ms: a mean over the rounds says more). */
  daemonCpuMs: number;
}

/** dispatch → first report, through roost. */
async function viaRoost(
  d: BenchDaemon,
  hub: Conn,
  reports: FirstReports,
): Promise<Side & { answerMs: number }> {
  const c0 = cpuMs(d.pid);
  const t0 = performance.now();
  const { job } = (await hub.ok("dispatch", { profile: "example-py" })) as { job: { id: string } };
  const answerMs = performance.now() - t0;
  const t1 = await reports.wait(job.id);
  return { ms: round(t1 - t0, 1), answerMs: round(answerMs, 1), daemonCpuMs: cpuMs(d.pid) - c0 };
}

/** spawn → first report, by hand, speaking for an inert job with that job's environment. */
async function byHand(
  d: BenchDaemon,
  reports: FirstReports,
  job: { id: string; pid: number },
): Promise<Side> {
  const env = procEnv(job.pid);
  const cwd = fs.readlinkSync(`/proc/${job.pid}/cwd`);
  const c0 = cpuMs(d.pid);
  const t0 = performance.now();
  const child = track(spawn("python3", [AGENT], { env, cwd, stdio: "ignore", detached: true }));
  try {
    const t1 = await reports.wait(job.id);
    return { ms: round(t1 - t0, 1), daemonCpuMs: cpuMs(d.pid) - c0 };
  } finally {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
  }
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir });
  let hub: Conn | null = null;
  try {
    hub = await d.connect();
    const reports = new FirstReports(hub);
    await hub.ok("subscribe", {});
    const rounds: { roost: Side & { answerMs: number }; hand: Side; overheadMs: number }[] = [];
    for (let r = 0; r <= ROUNDS; r++) {
      const [job] = await dispatchInert(d, 1);
      await sleep(300); // the inert job's start is over (its row, its feed entry, the pty's first output)
      let roost: Side & { answerMs: number };
      let hand: Side;
      if (r % 2 === 0) {
        roost = await viaRoost(d, hub, reports);
        await sleep(300);
        hand = await byHand(d, reports, job!);
      } else {
        hand = await byHand(d, reports, job!);
        await sleep(300);
        roost = await viaRoost(d, hub, reports);
      }
      const overheadMs = round(roost.ms - hand.ms, 1);
      if (r === 0) ctx.log(`warm-up: roost ${roost.ms} ms, by hand ${hand.ms} ms`);
      else {
        rounds.push({ roost, hand, overheadMs });
        ctx.log(
          `round ${r}: dispatch → report ${roost.ms} ms (answered in ${roost.answerMs}), ` +
            `spawn → report ${hand.ms} ms: overhead ${overheadMs} ms`,
        );
      }
      await sleep(300);
    }
    const mean = (f: (x: (typeof rounds)[number]) => number) =>
      round(rounds.reduce((s, x) => s + f(x), 0) / rounds.length, 1);
    const overhead = median(rounds.map((x) => x.overheadMs));
    const S = "dispatch";
    const roostMs = median(rounds.map((x) => x.roost.ms));
    const handMs = median(rounds.map((x) => x.hand.ms));
    const ratio = round(median(rounds.map((x) => x.roost.ms / x.hand.ms)), 2);
    const roostCpuMs = mean((x) => x.roost.daemonCpuMs);
    const handCpuMs = mean((x) => x.hand.daemonCpuMs);
    const figures: Figure[] = [
      withBaseline(S, "start → first report, p50", "ms", roostMs, handMs, ratio),
      underTarget(S, "overhead (dispatch − by hand), p50", "ms", overhead, TARGET_MS),
      info(
        S,
        "overhead, p90",
        "ms",
        round(
          percentile(
            rounds.map((x) => x.overheadMs),
            90,
          ),
          1,
        ),
      ),
      info(S, "dispatch answered, p50", "ms", median(rounds.map((x) => x.roost.answerMs))),
      withBaseline(S, "daemon CPU, start → first report (mean)", "ms", roostCpuMs, handCpuMs),
    ];
    return { figures, detail: { rounds, agent: AGENT } };
  } finally {
    hub?.close();
  }
}

export const dispatchScenario: Scenario = {
  name: "dispatch",
  aliases: ["dispatch-latency"],
  title: "dispatch → first report of the Python example agent, against the agent started by hand",
  run,
};
