/**
 * Many agents: 1,000 protocol agents connected at once, each for a job of its own, each saying
 * `hello`, reporting once and then every few seconds; and a hub subscribed to the rows meanwhile,
 * as the web hub is. The figure is the daemon's memory (VmRSS in /proc/<pid>/status).
 *
 * The jobs are real: 1,000 dispatches of the inert protocol profile (`sleep 600` in a pty each).
 * The agents are not 1,000 programs: a Node agent is ~40 MB and a Python one ~10 MB, 10–40 GB for
 * 1,000 on a 2-core machine; the benchmark speaks for each job on a raw socket of its own, with
 * the token from the job's environment, as the other scenarios do. To the daemon that is the same
 * thing: 1,000 jobs, 1,000 connections, 1,000 sessions reporting.
 */
import { performance } from "node:perf_hooks";
import { BenchAgent } from "../agent.js";
import { type Figure, info, underTarget } from "../figures.js";
import { BenchDaemon, dispatchJobs, sleep } from "../harness.js";
import type { Conn } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { Contention, cpuMs, median, memKiB, percentile, round } from "../stats.js";

const AGENTS = 1000;
const DISPATCH_IN_FLIGHT = 8;
const REPORT_EVERY_MS = 3000;
const MEASURE_MS = 12000;
const SAMPLE_MS = 250;
const TARGET_MB = 200;
const TARGET_MIB = (TARGET_MB * 1e6) / 2 ** 20; // 190.7: 200 MB, not MiB

/** An agent's next report: its summary, tool and context change each time, so its row does. */
function nextReport(agent: BenchAgent): object {
  const r = agent.reports;
  return {
    state: "working",
    status: "busy",
    summary: `step ${r}: reading server/core/jobs/agents.ts (agent ${agent.n})`,
    tool: r % 2 === 0 ? "read" : "bash",
    model: "claude-sonnet-4",
    thinking: "medium",
    context: { tokens: 40000 + r * 100, window: 200000, percent: 20 },
  };
}

/** Reports every REPORT_EVERY_MS from a random phase, so that the 1,000 do not report in step; returns the stop. */
function reportEvery(agent: BenchAgent): () => void {
  let timer: NodeJS.Timeout = setTimeout(() => {
    void agent.report(nextReport(agent));
    timer = setInterval(() => void agent.report(nextReport(agent)), REPORT_EVERY_MS);
  }, Math.random() * REPORT_EVERY_MS);
  return () => clearTimeout(timer); // clears an interval too
}

/** The daemon's and the pty host's memory now, in MiB. */
function memory(d: BenchDaemon) {
  const daemon = memKiB(d.pid);
  const host = d.ptyHostPid();
  return {
    daemonRssMiB: round(daemon.rss / 1024, 1),
    hostRssMiB: host ? round(memKiB(host).rss / 1024, 1) : null,
  };
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir });
  const agents: BenchAgent[] = [];
  let stops: (() => void)[] = [];
  let hub: Conn | null = null;
  try {
    await sleep(500);
    const idle = memory(d);
    ctx.log(`daemon started: ${idle.daemonRssMiB} MiB (pty host ${idle.hostRssMiB} MiB)`);

    // A hub, subscribed to the rows, reading them (pushes it does not read would pile up).
    hub = await d.connect();
    let pushes = 0;
    hub.onEvent = () => {
      pushes++;
    };
    await hub.ok("subscribe", {});

    const t0 = performance.now();
    const c0 = cpuMs(d.pid);
    const jobs = await dispatchJobs(d, "inert", AGENTS, DISPATCH_IN_FLIGHT);
    const dispatchS = round((performance.now() - t0) / 1000, 1);
    const dispatchCpuMsPerJob = round((cpuMs(d.pid) - c0) / AGENTS, 2);
    await sleep(500);
    const withJobs = memory(d);
    ctx.log(
      `${AGENTS} jobs dispatched in ${dispatchS} s (${dispatchCpuMsPerJob} ms of daemon CPU each): ` +
        `${withJobs.daemonRssMiB} MiB (pty host ${withJobs.hostRssMiB} MiB)`,
    );

    const t1 = performance.now();
    // 100 at a time, each batch introduced before the next connects: a connection waits in the
    // daemon's accept queue until it is accepted, and Node's listen backlog is 511 (a busy daemon
    // on a loaded machine had the 512th connect fail with EAGAIN).
    for (let i = 0; i < jobs.length; i += 100) {
      const batch = await Promise.all(
        jobs.slice(i, i + 100).map((j, k) => BenchAgent.connect(d.socket, j, i + k)),
      );
      await Promise.all(batch.map((a) => a.introduce("bench-agent", ["report", "replies"], nextReport(a))));
      agents.push(...batch);
    }
    const connectS = round((performance.now() - t1) / 1000, 1);
    const { rows } = (await hub.ok("list", {})) as { rows: { connected: boolean; kind: string }[] };
    const connected = rows.filter((r) => r.connected && r.kind === "protocol").length;
    if (connected !== AGENTS) throw new Error(`${connected} of ${AGENTS} jobs are connected protocol jobs`);
    await sleep(500);
    const withAgents = memory(d);
    ctx.log(`${AGENTS} agents connected and reported in ${connectS} s: ${withAgents.daemonRssMiB} MiB`);

    // Reporting: every agent every REPORT_EVERY_MS, the daemon's RSS sampled throughout.
    const reports0 = agents.reduce((s, a) => s + a.reports, 0);
    const marks = agents.map((a) => a.answerMs.length); // where the measured reports' latencies begin
    stops = agents.map(reportEvery);
    const contention = new Contention([d.pid, "self"]);
    const c1 = cpuMs(d.pid);
    const t2 = performance.now();
    const samples: number[] = [];
    while (performance.now() - t2 < MEASURE_MS) {
      samples.push(memKiB(d.pid).rss / 1024);
      await sleep(SAMPLE_MS);
    }
    const cpu = cpuMs(d.pid) - c1;
    const wall = performance.now() - t2;
    const busy = contention.end();
    for (const stop of stops) stop();
    await Promise.all(agents.map((a) => a.settled()));
    const reports = agents.reduce((s, a) => s + a.reports, 0) - reports0;
    const errors = agents.reduce((s, a) => s + a.errors, 0);
    if (errors > 0)
      throw new Error(`${errors} error answers; the first: ${agents.find((a) => a.firstError)?.firstError}`);
    const lat = agents.flatMap((a, i) => a.answerMs.slice(marks[i]));
    const end = memory(d);
    const peak = Math.max(...samples);
    const host = d.ptyHostPid();
    const hostFinal = host ? memKiB(host) : null;
    ctx.log(
      `${reports} reports in ${round(wall / 1000, 1)} s (${round((reports / wall) * 1000, 0)}/s, ` +
        `${round((cpu * 1000) / reports, 0)} µs of daemon CPU each); RSS peak ${round(peak, 1)} MiB, ` +
        `end ${end.daemonRssMiB} MiB; other processes used ${busy.otherCpus} CPUs`,
    );

    const S = "many agents";
    const figures: Figure[] = [
      underTarget(
        S,
        `daemon RSS, ${AGENTS} agents reporting (peak)`,
        "MiB",
        round(peak, 1),
        TARGET_MIB,
        `< ${TARGET_MB} MB (${TARGET_MIB.toFixed(1)} MiB)`,
      ),
      info(S, "daemon RSS: started, no jobs", "MiB", idle.daemonRssMiB),
      info(S, `daemon RSS: ${AGENTS} jobs, no agent yet`, "MiB", withJobs.daemonRssMiB),
      info(S, `daemon RSS: ${AGENTS} agents connected`, "MiB", withAgents.daemonRssMiB),
      info(S, "daemon CPU per report", "µs", round((cpu * 1000) / reports, 0)),
      info(S, "report answered, p99", "ms", round(percentile(lat, 99), 2)),
      info(S, `pty host RSS, ${AGENTS} jobs`, "MiB", end.hostRssMiB ?? Number.NaN),
    ];
    return {
      figures,
      detail: {
        agents: AGENTS,
        reportEveryMs: REPORT_EVERY_MS,
        measureMs: MEASURE_MS,
        dispatchS,
        dispatchCpuMsPerJob,
        connectS,
        memory: {
          idle,
          withJobs,
          withAgents,
          end,
          hostPssMiB: hostFinal ? round(hostFinal.pss / 1024, 1) : null,
        },
        rssSamplesMiB: samples.map((s) => round(s, 1)),
        reports,
        reportsPerS: round((reports / wall) * 1000, 0),
        daemonCpuPct: round((cpu / wall) * 100, 1),
        reportLatencyMs: { p50: round(median(lat), 2), p99: round(percentile(lat, 99), 2) },
        hubPushes: pushes,
        ...busy,
      },
    };
  } finally {
    for (const stop of stops) stop();
    for (const a of agents) a.close();
    hub?.close();
  }
}

export const manyAgents: Scenario = {
  name: "many-agents",
  aliases: ["many", "agents"],
  title: `many agents: ${AGENTS} protocol agents connected and reporting`,
  run,
};
