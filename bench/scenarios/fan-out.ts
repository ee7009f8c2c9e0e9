/**
 * Fan-out: 100 WebSocket subscribers (`/api/subscribe`, the owner's token) while 1,000 reports a
 * second arrive from 100 protocol agents on the socket (10 a second each, every one changing its
 * summary). The figure is report → push latency at each subscriber: the report's summary carries
 * its send time, and each `row` push is matched by it (bench/subscribers.ts). Row pushes are
 * coalesced per turn of the daemon's event loop: values a subscriber never saw are counted as
 * coalesced, and the latency is that of the value it did see.
 *
 * The subscribers run in a child process of their own: on 2 CPUs, the daemon, the report senders
 * and 100,000 WebSocket messages a second cannot share one event loop without the benchmark's own
 * delay becoming the measurement. Each process's CPU is reported, and the child's event-loop delay.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { performance } from "node:perf_hooks";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { BenchAgent } from "../agent.js";
import { type Figure, info, underTarget, withRounds } from "../figures.js";
import { BenchDaemon, dispatchJobs, sleep, track } from "../harness.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { Contention, cpuMs, median, percentile, round, syscalls } from "../stats.js";

// BENCH_FANOUT_SUBSCRIBERS and BENCH_FANOUT_RATE change the load, for finding where the knee is.
const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS) || 100;
const AGENTS = 100;
const RATE = Number(process.env.BENCH_FANOUT_RATE) || 1000; // reports a second, in all
const ROUNDS = 3;
const WARM_MS = 1000;
const MEASURE_MS = 4000;
const TARGET_P99_MS = 5;
const SUBSCRIBERS_JS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../subscribers.js");

const wallNow = () => performance.timeOrigin + performance.now();

/** An agent's next report: its summary says who sent it, which one, and when (the subscribers match on it). */
function nextReport(agent: BenchAgent): object {
  const k = agent.reports + 1;
  return {
    state: "working",
    status: "busy",
    summary: `fan a=${agent.n} k=${k} t=${wallNow().toFixed(3)} reading server/core/pushes.ts`,
    tool: k % 2 === 0 ? "read" : "bash",
    model: "claude-sonnet-4",
    context: { tokens: 40000 + k * 10, window: 200000, percent: 20 },
  };
}

interface SubStats {
  wallMs: number;
  cpuPct: number;
  messages: number;
  bytes: number;
  rows: number;
  matched: number;
  coalesced: number;
  stale: number;
  closed: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  loopDelay: { p50: number; p99: number; max: number };
}

/** The subscribers' child process, spoken to by lines on stdin and stdout. */
class Subscribers {
  private readonly lines: AsyncIterator<string>;

  private constructor(readonly child: ChildProcess) {
    this.lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  }

  static async start(wsUrl: string, token: string, n: number): Promise<Subscribers> {
    const child = track(
      spawn(process.execPath, [SUBSCRIBERS_JS, wsUrl, String(n)], { stdio: ["pipe", "pipe", "inherit"] }),
    );
    child.stdin!.write(`${token}\n`);
    const s = new Subscribers(child);
    const line = await s.next();
    if (line !== "ready") throw new Error(`the subscribers said ${line}`);
    return s;
  }

  async next(): Promise<string> {
    const { value, done } = await this.lines.next();
    if (done) throw new Error(`the subscribers' process ended (${this.child.exitCode})`);
    return value;
  }

  begin(): void {
    this.child.stdin!.write("start\n");
  }

  async stop(): Promise<SubStats> {
    this.child.stdin!.write("stop\n");
    return JSON.parse(await this.next()) as SubStats;
  }

  async exit(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.stdin!.write("exit\n");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(timer);
  }
}

interface Round {
  subscribers: SubStats;
  reportsPerS: number;
  daemonCpuPct: number;
  /** The daemon's write system calls (write, writev: /proc/<pid>/io) per push message received. */
  daemonWritesPerMessage: number;
  benchCpuPct: number;
  /** How late the pacer sent (ms after each report was due): the sender's own delay. */
  senderLag: { p50: number; p99: number };
  /** A report sent → its answer back at the agent (ms): the daemon's read-and-answer delay. */
  answered: { p50: number; p99: number };
  otherCpus: number;
  stealCpus: number;
}

/** Sends RATE reports a second, round-robin over the agents, for `ms`; returns each report's lateness. */
async function pace(agents: BenchAgent[], ms: number): Promise<number[]> {
  const total = Math.round((RATE * ms) / 1000);
  const lag: number[] = [];
  const t0 = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - t0) * RATE) / 1000));
      for (; sent < due; sent++) {
        const agent = agents[sent % agents.length]!;
        void agent.report(nextReport(agent));
        lag.push(now - (t0 + (sent * 1000) / RATE));
      }
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  return lag;
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir });
  const agents: BenchAgent[] = [];
  let subs: Subscribers | null = null;
  try {
    const url = await d.hubUrl();
    const wsUrl = `${url.replace(/^http/, "ws")}api/subscribe`;
    ctx.log(`dispatching ${AGENTS} jobs; ${SUBSCRIBERS} subscribers on ${wsUrl}`);
    const jobs = await dispatchJobs(d, "inert", AGENTS, 4);
    for (const [n, job] of jobs.entries()) agents.push(await BenchAgent.connect(d.socket, job, n));
    await Promise.all(agents.map((a) => a.introduce("bench-fan", ["report"], nextReport(a))));
    subs = await Subscribers.start(wsUrl, d.token, SUBSCRIBERS);
    const childPid = subs.child.pid!;

    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await pace(agents, WARM_MS);
      subs.begin();
      const contention = new Contention([d.pid, "self", childPid]);
      const [t0, c0, b0, w0] = [performance.now(), cpuMs(d.pid), cpuMs("self"), syscalls(d.pid).writes];
      const sent0 = agents.reduce((s, a) => s + a.sent, 0);
      for (const a of agents) a.answerMs.length = 0;
      const lag = await pace(agents, MEASURE_MS);
      const [t1, c1, b1] = [performance.now(), cpuMs(d.pid), cpuMs("self")];
      const sent1 = agents.reduce((s, a) => s + a.sent, 0);
      await sleep(100); // the last pushes arrive
      const busy = contention.end();
      const w1 = syscalls(d.pid).writes;
      const s = await subs.stop();
      const wall = t1 - t0;
      const round1: Round = {
        subscribers: s,
        reportsPerS: round(((sent1 - sent0) / wall) * 1000, 0),
        daemonCpuPct: round(((c1 - c0) / wall) * 100, 0),
        daemonWritesPerMessage: round((w1 - w0) / Math.max(1, s.messages), 3),
        benchCpuPct: round(((b1 - b0) / wall) * 100, 0),
        senderLag: { p50: round(median(lag), 2), p99: round(percentile(lag, 99), 2) },
        answered: (() => {
          const all = agents.flatMap((a) => a.answerMs);
          return { p50: round(median(all), 2), p99: round(percentile(all, 99), 2) };
        })(),
        ...busy,
      };
      rounds.push(round1);
      const perS = round((s.messages / s.wallMs) * 1000, 0);
      ctx.log(
        `round ${r + 1}: ${round1.reportsPerS} reports/s; push p50 ${s.latency.p50} ms, p99 ${s.latency.p99} ms, max ${s.latency.max} ms; ` +
          `${perS} messages/s to ${SUBSCRIBERS} subscribers, ${s.coalesced} of ${s.matched + s.coalesced} values coalesced; ` +
          `CPU: daemon ${round1.daemonCpuPct} % (${round1.daemonWritesPerMessage} writes per message), subscribers ${s.cpuPct} % (loop delay p99 ${s.loopDelay.p99} ms), ` +
          `report answered p50 ${round1.answered.p50} p99 ${round1.answered.p99} ms; senders ${round1.benchCpuPct} % (late p99 ${round1.senderLag.p99} ms); other processes used ${busy.otherCpus} CPUs`,
      );
      if (s.closed > 0) throw new Error(`${s.closed} subscribers were disconnected`);
    }
    const errors = agents.reduce((s, a) => s + a.errors, 0);
    if (errors > 0)
      throw new Error(`${errors} error answers; the first: ${agents.find((a) => a.firstError)?.firstError}`);

    const S = "fan-out";
    const m = (f: (r: Round) => number) => median(rounds.map(f));
    const p99 = m((r) => r.subscribers.latency.p99);
    const figures: Figure[] = [
      withRounds(
        underTarget(
          S,
          `p99 report → push, ${SUBSCRIBERS} subscribers, ${RATE} reports/s`,
          "ms",
          p99,
          TARGET_P99_MS,
        ),
        rounds.map((r) => r.subscribers.latency.p99),
      ),
      withRounds(
        info(
          S,
          "p50 report → push",
          "ms",
          m((r) => r.subscribers.latency.p50),
        ),
        rounds.map((r) => r.subscribers.latency.p50),
      ),
      info(
        S,
        "reports sent/s",
        "/s",
        m((r) => r.reportsPerS),
      ),
      info(
        S,
        "push messages/s, all subscribers",
        "/s",
        m((r) => (r.subscribers.messages / r.subscribers.wallMs) * 1000),
      ),
      info(
        S,
        "values coalesced (never pushed)",
        "%",
        m(
          (r) =>
            (r.subscribers.coalesced / Math.max(1, r.subscribers.matched + r.subscribers.coalesced)) * 100,
        ),
      ),
      info(
        S,
        "daemon CPU",
        "%",
        m((r) => r.daemonCpuPct),
      ),
      info(
        S,
        "daemon write system calls per push message",
        "",
        m((r) => r.daemonWritesPerMessage),
      ),
      info(
        S,
        "subscribers' process CPU",
        "%",
        m((r) => r.subscribers.cpuPct),
      ),
      info(
        S,
        "subscribers' event-loop delay, p99",
        "ms",
        m((r) => r.subscribers.loopDelay.p99),
      ),
      info(
        S,
        "senders' CPU (the bench process)",
        "%",
        m((r) => r.benchCpuPct),
      ),
    ];
    return {
      figures,
      detail: {
        subscribers: SUBSCRIBERS,
        agents: AGENTS,
        rate: RATE,
        warmMs: WARM_MS,
        measureMs: MEASURE_MS,
        rounds,
      },
    };
  } finally {
    for (const a of agents) a.close();
    await subs?.exit();
  }
}

export const fanOut: Scenario = {
  name: "fan-out",
  aliases: ["fanout", "subscribers"],
  title: `fan-out: ${SUBSCRIBERS} WebSocket subscribers while ${RATE} reports/s arrive`,
  run,
};
