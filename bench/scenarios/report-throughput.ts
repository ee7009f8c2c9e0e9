/**
 * Report throughput: 100 agent connections, one per running job, each keeping a window of 16
 * `report` requests in flight (a new one for each answer), against the real daemon; and the same
 * lines from the same kind of 100 connections against a bare Node JSON-lines server
 * (bench/baseline-server.ts), in alternating rounds of the same run.
 *
 * The client counts answers by their newlines and never parses them (an error answer is found by
 * its `"ok":false`), so that it costs as little as it can of a machine it shares with the server.
 */
import net from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type Figure, ratioAtLeast, withBaseline } from "../figures.js";
import {
  BenchDaemon,
  dispatchInert,
  INERT_CONFIG,
  type InertJob,
  type LoopDelay,
  sleep,
  startBaselineServer,
  stopChild,
  tempDir,
} from "../harness.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { Contention, cpuMs, median, round, rssMiB, syscalls } from "../stats.js";

const CONNECTIONS = 100;
const WINDOW = 16;
const ROUNDS = 3;
const WARM_MS = 1000;
const MEASURE_MS = 3000;
const TARGET = 0.9;

/** One agent connection, pipelining reports. */
class Driver {
  answered = 0;
  errors = 0;
  firstError: string | null = null;
  private inFlight = 0;
  private nextId = 1;
  private pumping = false;
  private drainedWaiter: (() => void) | null = null;
  private readonly args: string;

  private constructor(
    private readonly socket: net.Socket,
    job: InertJob,
    n: number,
  ) {
    this.args = JSON.stringify({ id: job.id, token: job.token, report: sampleReport(n) });
  }

  /** Connects, says hello and reports once (the connection becomes the job's); both answers checked. */
  static async open(socketPath: string, job: InertJob, n: number): Promise<Driver> {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(socketPath);
      s.once("connect", () => resolve(s));
      s.once("error", reject);
    });
    socket.on("error", () => {});
    const d = new Driver(socket, job, n);
    const hello = { protocol: 1, agent: { name: "bench", version: "0" }, capabilities: ["report"] };
    socket.write(`${JSON.stringify({ id: 0, op: "hello", args: hello })}\n${d.line()}`);
    let text = "";
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        text += chunk.toString("utf8");
        const lines = text.split("\n").filter(Boolean);
        if (lines.length < 2) return;
        socket.off("data", onData);
        for (const l of lines) {
          const a = JSON.parse(l) as { ok: boolean; error?: string };
          if (!a.ok) reject(new Error(`${job.id}: ${a.error}`));
        }
        resolve();
      };
      socket.on("data", onData);
    });
    socket.on("data", (chunk: Buffer) => d.receive(chunk));
    return d;
  }

  private line(): string {
    return `{"id":${this.nextId++},"op":"report","args":${this.args}}\n`;
  }

  start(): void {
    this.pumping = true;
    this.send(WINDOW - this.inFlight);
  }

  /** Stops sending; resolves once every request sent is answered. */
  stop(): Promise<void> {
    this.pumping = false;
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drainedWaiter = resolve;
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private send(n: number): void {
    if (n <= 0) return;
    let text = "";
    for (let i = 0; i < n; i++) text += this.line();
    this.inFlight += n;
    this.socket.write(text);
  }

  private receive(chunk: Buffer): void {
    let n = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, nl + 1)) n++;
    if (chunk.includes('"ok":false')) {
      this.errors++;
      this.firstError ??=
        chunk
          .toString("utf8")
          .split("\n")
          .find((l) => l.includes('"ok":false')) ?? null;
    }
    this.inFlight -= n;
    this.answered += n;
    if (this.pumping) this.send(n);
    else if (this.inFlight === 0 && this.drainedWaiter) {
      this.drainedWaiter();
      this.drainedWaiter = null;
    }
  }
}

/** What a working agent reports, often: a handful of the common fields. */
function sampleReport(n: number) {
  return {
    state: "working",
    status: "busy",
    summary: `reading server/core/jobs/agents.ts and its tests (agent ${n})`,
    tool: "read",
    model: "claude-sonnet-4",
    thinking: "medium",
    context: { tokens: 48213 + n, window: 200000, percent: 24 },
  };
}

interface Phase {
  rate: number;
  /** The server's CPU time per answer, in µs. */
  serverCpuUs: number;
  /** The server's and the benchmark's own CPU use during the phase, in % of one core. */
  serverCpuPct: number;
  clientCpuPct: number;
  /** The server's read and write system calls per answer: how many answers each write carries. */
  serverReadsPerAnswer: number;
  serverWritesPerAnswer: number;
  errors: number;
  /** CPUs the rest of the machine used meanwhile, and the hypervisor took (see Contention). */
  otherCpus: number;
  stealCpus: number;
  loopDelay?: LoopDelay | null;
}

async function drive(drivers: Driver[], serverPid: number, probe?: () => Promise<LoopDelay | null>) {
  const total = () => drivers.reduce((s, d) => s + d.answered, 0);
  const errors = () => drivers.reduce((s, d) => s + d.errors, 0);
  for (const d of drivers) d.start();
  await sleep(WARM_MS);
  await probe?.(); // resets the daemon's histogram
  const contention = new Contention([serverPid, "self"]);
  const [a0, e0, t0, c0, u0, s0] = [
    total(),
    errors(),
    performance.now(),
    cpuMs(serverPid),
    process.cpuUsage(),
    syscalls(serverPid),
  ];
  await sleep(MEASURE_MS);
  const [a1, e1, t1, c1, u1, s1] = [
    total(),
    errors(),
    performance.now(),
    cpuMs(serverPid),
    process.cpuUsage(u0),
    syscalls(serverPid),
  ];
  const busy = contention.end();
  const loopDelay = await probe?.();
  await Promise.all(drivers.map((d) => d.stop()));
  const answers = a1 - a0;
  const phase: Phase = {
    rate: round((answers / (t1 - t0)) * 1000, 0),
    serverCpuUs: round(((c1 - c0) * 1000) / answers, 1),
    serverCpuPct: round(((c1 - c0) / (t1 - t0)) * 100, 0),
    clientCpuPct: round(((u1.user + u1.system) / 1000 / (t1 - t0)) * 100, 0),
    serverReadsPerAnswer: round((s1.reads - s0.reads) / answers, 3),
    serverWritesPerAnswer: round((s1.writes - s0.writes) / answers, 3),
    errors: e1 - e0,
    ...busy,
  };
  if (loopDelay) phase.loopDelay = loopDelay;
  return phase;
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir });
  const baseDir = tempDir("roost-bench-base-");
  const drivers: Driver[] = [];
  ctx.log(`dispatching ${CONNECTIONS} jobs (${INERT_CONFIG.agentProfiles.inert.command.join(" ")})`);
  const jobs = await dispatchInert(d, CONNECTIONS);
  const baseSocket = path.join(baseDir, "base.sock");
  const base = await startBaselineServer(baseSocket);
  try {
    const roost = await Promise.all(jobs.map((j, i) => Driver.open(d.socket, j, i)));
    const bare = await Promise.all(jobs.map((j, i) => Driver.open(baseSocket, j, i)));
    drivers.push(...roost, ...bare);
    const rounds: { roost: Phase; baseline: Phase; ratio: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating which goes first, so that a drift of the machine falls on both.
      const probe = d.probe;
      let b: Phase;
      let x: Phase;
      if (r % 2 === 0) {
        b = await drive(bare, base.pid!);
        x = await drive(roost, d.pid, probe);
      } else {
        x = await drive(roost, d.pid, probe);
        b = await drive(bare, base.pid!);
      }
      const ratio = round(x.rate / b.rate, 3);
      rounds.push({ roost: x, baseline: b, ratio });
      ctx.log(
        `round ${r + 1}: roost ${x.rate}/s (${x.serverCpuUs} µs CPU, ${x.serverWritesPerAnswer} writes each), ` +
          `baseline ${b.rate}/s (${b.serverCpuUs} µs, ${b.serverWritesPerAnswer} writes), ratio ${ratio.toFixed(2)}; ` +
          `other processes used ${x.otherCpus} and ${b.otherCpus} CPUs`,
      );
    }
    const errors = rounds.reduce((s, r) => s + r.roost.errors + r.baseline.errors, 0);
    if (errors > 0) {
      const first = [...roost, ...bare].find((x) => x.firstError)?.firstError;
      throw new Error(`${errors} error answers; the first: ${first}`);
    }
    const ratio = median(rounds.map((r) => r.ratio));
    const S = "report throughput";
    const ofRoost = (pick: (p: Phase) => number) => median(rounds.map((r) => pick(r.roost)));
    const ofBaseline = (pick: (p: Phase) => number) => median(rounds.map((r) => pick(r.baseline)));
    const rate = (p: Phase) => p.rate;
    const cpu = (p: Phase) => p.serverCpuUs;
    const cpuRatio = median(rounds.map((r) => cpu(r.roost) / cpu(r.baseline)));
    const figures: Figure[] = [
      ratioAtLeast(S, "reports answered/s", "/s", ofRoost(rate), ofBaseline(rate), ratio, TARGET),
      withBaseline(S, "server CPU per report", "µs", ofRoost(cpu), ofBaseline(cpu), cpuRatio),
    ];
    const rss = round(rssMiB(d.pid), 1);
    return {
      figures,
      detail: {
        connections: CONNECTIONS,
        window: WINDOW,
        measureMs: MEASURE_MS,
        rounds,
        daemonRssMiB: rss,
      },
    };
  } finally {
    for (const x of drivers) x.close();
    await stopChild(base);
  }
}

export const reportThroughput: Scenario = {
  name: "report",
  aliases: ["reports", "report-throughput", "throughput"],
  title: "report throughput: 100 agents pipelining reports",
  run,
};
