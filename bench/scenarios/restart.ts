/**
 * Restart: `kill -9` of the daemon with 200 protocol agents connected, each with a reply that is
 * pending at the kill (delivered to the agent, not acked: the agent was still working on it), and
 * the daemon started again at once. Timed: from the new daemon's socket accepting a connection
 * (and from the kill) until every agent is connected again and has its pending reply delivered
 * again, and until its ack of it is answered (acks are written together every 50 ms, so an answered
 * ack may not be on disk yet: a crash then only delivers the reply again).
 *
 * The jobs are 200 dispatches of the inert protocol profile (`sleep 600` in a pty each); their pty
 * host outlives the daemon, as it does in use. The agents are the benchmark's raw sockets, with
 * each job's token from its environment. An agent whose connection dropped connects again the
 * moment a prober (connecting every 2 ms) finds the new socket accepting: all 200 at once, the
 * hardest case for the daemon. The figure is the daemon's; real clients back off (the SDKs: 100 ms
 * doubling to 5 s, ± 20 %), which adds their own wait to what a user sees.
 */
import net from "node:net";
import { performance } from "node:perf_hooks";
import { LineSplitter } from "../../sdk/ts/protocol/lines.js";
import { type Figure, info, underTarget } from "../figures.js";
import { BenchDaemon, dispatchJobs, type InertJob, sleep, until } from "../harness.js";
import { type Conn, connectWhenReady } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { cpuMs, median, round } from "../stats.js";

const AGENTS = 200;
const ROUNDS = 5;
const TARGET_MS = 100;

/** An agent for one job: reports on every connection; acks deliveries only when armed. */
class Agent {
  socket: net.Socket | null = null;
  /** Ack each `deliver` on arrival (after the restart), or leave it pending (before the kill). */
  armed = false;
  /** The seq this round waits for, and when it came (on the benchmark's clock) and was acked. */
  expected = 0;
  delivered: number | null = null;
  acked: number | null = null;
  lastSeq = 0;
  connectedAt: number | null = null;
  errors: string[] = [];
  private nextId = 1;
  private lines = new LineSplitter();
  private readonly acks = new Map<number, number>();

  constructor(
    private readonly path: string,
    readonly job: InertJob,
  ) {}

  /** Connects, says hello and reports; the answers come in `receive`. */
  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const s = net.connect(this.path);
      s.once("error", reject);
      s.once("connect", () => {
        s.off("error", reject);
        s.on("error", () => {});
        this.socket = s;
        this.lines = new LineSplitter();
        this.connectedAt = performance.now();
        s.on("data", (chunk: Buffer) => this.receive(chunk));
        s.on("close", () => {
          if (this.socket === s) this.socket = null;
        });
        const hello = {
          protocol: 1,
          agent: { name: "bench-agent", version: "1.0" },
          capabilities: ["report", "replies"],
        };
        const report = { state: "working", status: "busy", summary: `on it (${this.job.id})`, tool: "bash" };
        this.send("hello", hello);
        this.send("report", { id: this.job.id, token: this.job.token, report });
        resolve();
      });
    });
  }

  private send(op: string, args: unknown): number {
    const id = this.nextId++;
    this.socket?.write(`${JSON.stringify({ id, op, args })}\n`);
    return id;
  }

  private receive(chunk: Buffer): void {
    this.lines.push(chunk);
    for (let line = this.lines.next(); line !== undefined; line = this.lines.next()) {
      const m = JSON.parse(line) as {
        event?: string;
        seq?: number;
        id?: unknown;
        ok?: boolean;
        error?: string;
        code?: string;
      };
      if (m.event === "deliver") {
        const seq = m.seq!;
        this.lastSeq = Math.max(this.lastSeq, seq);
        if (seq === this.expected && this.delivered === null) this.delivered = performance.now();
        if (this.armed) this.acks.set(this.send("ack", { id: this.job.id, token: this.job.token, seq }), seq);
      } else if (m.event === undefined) {
        if (!m.ok) this.errors.push(`${m.code}: ${m.error}`);
        const seq = this.acks.get(m.id as number);
        if (seq !== undefined) {
          this.acks.delete(m.id as number);
          if (m.ok && seq === this.expected && this.acked === null) this.acked = performance.now();
        }
      }
    }
  }
}

interface Round {
  /** kill -9 → the daemon's exit seen; → its successor spawned; → its socket accepting. */
  killToExitMs: number;
  killToReadyMs: number;
  spawnToReadyMs: number;
  /** The socket accepting → the daemon's first answer (to the prober's `hello`). */
  readyToFirstAnswerMs: number;
  /** From the socket accepting: each agent's pending reply delivered again, and its ack answered. */
  deliveredP50Ms: number;
  deliveredAllMs: number;
  ackedAllMs: number;
  /** The same two from the kill. */
  deliveredAllFromKillMs: number;
  ackedAllFromKillMs: number;
  /** The new daemon's CPU time from its spawn until every ack was answered. */
  daemonCpuMs: number;
}

/** Sends one reply to every job and waits until each is saved and delivered (and left unacked). */
async function replyToAll(hub: Conn, agents: Agent[], round: number): Promise<void> {
  for (const a of agents) {
    a.armed = false;
    a.expected = a.lastSeq + 1;
    a.delivered = null;
    a.acked = null;
  }
  const answers = await Promise.all(
    agents.map((a) =>
      hub.request("reply", {
        id: a.job.id,
        text: `round ${round}: also fix the docs`,
        requestId: `r${round}-${a.job.id}`,
      }),
    ),
  );
  const failed = answers.find((x) => !x.ok);
  if (failed) throw new Error(`reply failed: ${failed.code}: ${failed.error}`);
  await until("every reply delivered", () => agents.every((a) => a.delivered !== null), 10000);
}

async function restartRound(d: BenchDaemon, hub: Conn, agents: Agent[], r: number): Promise<Round> {
  await replyToAll(hub, agents, r);
  // Every job has exactly its one reply pending (the previous round's acks are stored).
  await until(
    "one reply pending for every job",
    async () => {
      const { rows } = (await hub.ok("list", {})) as { rows: { pending: number; connected: boolean }[] };
      return rows.filter((x) => x.pending === 1 && x.connected).length === agents.length;
    },
    5000,
  );
  hub.close();
  for (const a of agents) {
    a.delivered = null;
    a.armed = true;
  }
  const tKill = performance.now();
  await d.stop("SIGKILL");
  const tExit = performance.now();
  d.launch();
  const tSpawn = performance.now();
  const probe = await connectWhenReady(d.socket, 15000, () => d.exitReason());
  const tReady = performance.now();
  // The prober's own request: how long after accepting the socket the daemon first answers.
  const firstAnswer = probe.request("hello", { protocol: 1 }).then(() => performance.now() - tReady);
  await Promise.all(agents.map((a) => a.connect()));
  await until(
    "every pending reply delivered again and acked",
    () => agents.every((a) => a.acked !== null),
    15000,
  );
  const daemonCpuMs = cpuMs(d.pid); // the new process's: from its spawn
  const readyToFirstAnswerMs = await firstAnswer;
  probe.close();
  const errors = agents.flatMap((a) => a.errors);
  if (errors.length > 0) throw new Error(`${errors.length} error answers; the first: ${errors[0]}`);
  const delivered = agents.map((a) => a.delivered! - tReady);
  const acked = agents.map((a) => a.acked! - tReady);
  const deliveredAll = Math.max(...delivered);
  const ackedAll = Math.max(...acked);
  return {
    killToExitMs: round(tExit - tKill, 1),
    killToReadyMs: round(tReady - tKill, 1),
    spawnToReadyMs: round(tReady - tSpawn, 1),
    readyToFirstAnswerMs: round(readyToFirstAnswerMs, 1),
    deliveredP50Ms: round(median(delivered), 1),
    deliveredAllMs: round(deliveredAll, 1),
    ackedAllMs: round(ackedAll, 1),
    deliveredAllFromKillMs: round(deliveredAll + tReady - tKill, 1),
    ackedAllFromKillMs: round(ackedAll + tReady - tKill, 1),
    daemonCpuMs: Math.round(daemonCpuMs),
  };
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir });
  const agents: Agent[] = [];
  try {
    const jobs = await dispatchJobs(d, "inert", AGENTS, 4);
    for (const job of jobs) agents.push(new Agent(d.socket, job));
    await Promise.all(agents.map((a) => a.connect()));
    ctx.log(`${AGENTS} jobs dispatched, their agents connected`);
    const rounds: Round[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const hub = await d.connect();
      const x = await restartRound(d, hub, agents, r);
      rounds.push(x);
      ctx.log(
        `round ${r}: kill → socket ${x.killToReadyMs} ms (spawn → socket ${x.spawnToReadyMs}); from the socket: ` +
          `first answer ${x.readyToFirstAnswerMs}, ` +
          `delivered p50 ${x.deliveredP50Ms}, all ${x.deliveredAllMs}, all acked ${x.ackedAllMs} ms; ` +
          `daemon CPU ${x.daemonCpuMs} ms`,
      );
      await sleep(200); // the acks are written together every 50 ms: all stored before the next kill
    }
    const m = (f: (x: Round) => number) => median(rounds.map(f));
    const S = "restart";
    const all = m((x) => x.deliveredAllMs);
    const figures: Figure[] = [
      underTarget(S, `socket → all ${AGENTS} back, pending replies delivered`, "ms", all, TARGET_MS),
      info(S, "  the worst round", "ms", Math.max(...rounds.map((x) => x.deliveredAllMs))),
      info(
        S,
        "socket → all acks answered",
        "ms",
        m((x) => x.ackedAllMs),
      ),
      info(
        S,
        "socket → an agent's reply delivered, p50",
        "ms",
        m((x) => x.deliveredP50Ms),
      ),
      info(
        S,
        "kill -9 → the new socket accepting",
        "ms",
        m((x) => x.killToReadyMs),
      ),
      info(
        S,
        "kill -9 → all replies delivered",
        "ms",
        m((x) => x.deliveredAllFromKillMs),
      ),
      info(
        S,
        "new daemon's CPU, spawn → all acked",
        "ms",
        m((x) => x.daemonCpuMs),
      ),
    ];
    return {
      figures,
      detail: { agents: AGENTS, rounds },
    };
  } finally {
    for (const a of agents) a.socket?.destroy();
  }
}

export const restart: Scenario = {
  name: "restart",
  aliases: ["restarts", "kill"],
  title: `restart: kill -9 with ${AGENTS} agents connected, each with a reply pending`,
  run,
};
