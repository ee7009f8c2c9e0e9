/**
 * Durable replies over the socket: `reply` ops from hub connections to 20 running jobs, each with
 * a raw agent connection that reported once and acks every `deliver` the moment it arrives (so
 * that no job reaches the 50-waiting `full` limit).
 *
 * - Closed loop: 4 hub connections keep 8 replies each in flight (until saved and acked); the rate
 *   of `saved` answers.
 * - Paced: 1,000 replies/s for 5 s, sent on time whatever the answers do; the latency of each.
 * - Baseline: one-row better-sqlite3 transactions with the daemon's durability settings (WAL,
 *   synchronous=FULL: each synced) on a temp file on the same file system, in the same run.
 *
 * Three latencies per reply, all on the benchmark's one clock: sent → answered (`saved`: on disk),
 * sent → `deliver` received by the agent, sent → the agent's ack answered (the ack is stored).
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { type Figure, info, ratioAtLeast, ratioHeld, withBaseline, withRounds } from "../figures.js";
import { BenchDaemon, dispatchInert, tempDir, until } from "../harness.js";
import { HttpHub } from "../http-client.js";
import type { Conn } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { Contention, median, percentile, round, rssMiB } from "../stats.js";
import { type HttpFloor, httpFloor } from "./http-floor.js";
import {
  type Busy,
  type Closed,
  closedLoop,
  type Load,
  MEASURE_MS,
  openAgent,
  PACED_MS,
  PACED_RATE,
  type Paced,
  paced,
  type Send,
  TEXT,
  Track,
  WARM_MS,
} from "./replies-load.js";

const JOBS = 20;
const HUBS = 4;
const WINDOW = 8;
/** replies-http: keep-alive connections to the HTTP face (HUBS × WINDOW replies in flight on them). */
const HTTP_SOCKETS = 16;
const ROUNDS = 3;
/** The rate, at least this many times a bare synced commit's (group commit pays for itself). */
const TARGET_RATIO = 1.5;
/** The p99 saved at the paced rate, at most this many times a bare synced commit's p99. */
const TARGET_P99_TIMES = 3;
/** Over HTTP, the rate at least this share of the socket's. */
const TARGET_HTTP_SHARE = 0.8;

interface Baseline extends Busy {
  rate: number;
  p50: number;
  p99: number;
}

/** One-row transactions, as fast as they go, with the daemon's durability settings. */
function baseline(db: Database.Database, state: { seq: number }): Baseline {
  const insert = db.prepare(
    "INSERT INTO replies (job_id, seq, text, mode, kind, at) VALUES (@job_id, @seq, @text, @mode, @kind, @at)",
  );
  const tx = db.transaction((p: Record<string, unknown>) => insert.run(p));
  const one = () => {
    const seq = ++state.seq;
    tx({
      job_id: `j${seq % JOBS}`,
      seq,
      text: `r${seq} ${TEXT}`,
      mode: null,
      kind: null,
      at: new Date().toISOString(),
    });
  };
  for (let end = performance.now() + WARM_MS; performance.now() < end; ) one();
  const contention = new Contention(["self"]);
  const lat: number[] = [];
  const t0 = performance.now();
  const end = t0 + MEASURE_MS;
  for (let t = t0; t < end; ) {
    one();
    const now = performance.now();
    lat.push(now - t);
    t = now;
  }
  const t1 = performance.now();
  return {
    rate: round((lat.length / (t1 - t0)) * 1000, 0),
    p50: round(median(lat), 4),
    p99: round(percentile(lat, 99), 4),
    ...contention.end(),
  };
}

type Face = "socket" | "http";

interface Round {
  /** The measured face's closed loop, and (replies-http only) the socket's in the same round. */
  roost: Closed;
  socket?: Closed;
  baseline: Baseline;
  ratio: number;
  /** replies-http: the HTTP rate ÷ the socket's, this round. */
  httpVsSocket?: number;
  paced: Paced;
}

/**
 * `face` "socket": the closed loop and the paced replies on 4 socket connections. "http": the
 * same over HTTP (`POST /api/reply` on HTTP_SOCKETS keep-alive connections, as many replies in
 * flight as the socket's 4 × 8), with the socket's closed loop beside it in every round.
 */
async function run(ctx: ScenarioContext, face: Face): Promise<ScenarioResult> {
  const S = face === "http" ? "replies over HTTP" : "durable replies";
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir });
  const dbDir = tempDir("roost-bench-sqlite-");
  const db = new Database(path.join(dbDir, "baseline.db"));
  const conns: Conn[] = [];
  let httpHub: HttpHub | null = null;
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.exec(`CREATE TABLE replies (
      job_id TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, mode TEXT, kind TEXT,
      acked INTEGER NOT NULL DEFAULT 0, at TEXT NOT NULL, PRIMARY KEY (job_id, seq)
    ) STRICT, WITHOUT ROWID`);
    const baseState = { seq: 0 };

    ctx.log(`dispatching ${JOBS} jobs, each with an agent that acks at once`);
    const jobs = await dispatchInert(d, JOBS);
    const track = new Track();
    for (const job of jobs) conns.push(await openAgent(d, job, track));
    const hubs: Conn[] = [];
    for (let i = 0; i < HUBS; i++) hubs.push(await d.connect());
    conns.push(...hubs);
    const socketSlots: Send[] = hubs.flatMap((hub) =>
      Array.from({ length: WINDOW }, () => (op: string, args: unknown) => hub.request(op, args)),
    );
    let slots = socketSlots;
    if (face === "http") {
      const url = await d.hubUrl();
      const h = new HttpHub(url, d.token, HTTP_SOCKETS);
      httpHub = h;
      const who = await h.request("whoami", {});
      if (!who.ok) throw new Error(`POST /api/whoami: ${who.code}: ${who.error}`);
      // As many replies in flight as on the socket; beyond the sockets they wait in the agent's queue.
      slots = Array.from({ length: HUBS * WINDOW }, () => (op: string, args: unknown) => h.request(op, args));
      ctx.log(`HTTP at ${url}: ${HTTP_SOCKETS} keep-alive connections, ${slots.length} replies in flight`);
    }
    const tag = `bench-${process.pid}-${Date.now()}`;
    const probe = d.probe;
    const load: Load = { d, slots, jobs, track, tag, probe };

    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      let b: Baseline | undefined;
      let x: Closed | undefined;
      let sock: Closed | undefined;
      // Alternating order: baseline first in even rounds, last in odd ones; HTTP next to the socket.
      const steps: (() => Promise<void>)[] = [
        async () => {
          b = baseline(db, baseState);
        },
        async () => {
          x = await closedLoop(load);
          await until("the closed loop's replies acked", () => track.settled(), 30000);
        },
      ];
      if (face === "http")
        steps.push(async () => {
          sock = await closedLoop({ ...load, slots: socketSlots });
          await until("the closed loop's replies acked", () => track.settled(), 30000);
        });
      if (r % 2 === 1) steps.reverse();
      for (const step of steps) await step();
      const p = await paced(load);
      const ratio = round(x!.rate / b!.rate, 3);
      const round1: Round = { roost: x!, baseline: b!, ratio, paced: p };
      if (sock) {
        round1.socket = sock;
        round1.httpVsSocket = round(x!.rate / sock.rate, 3);
      }
      rounds.push(round1);
      ctx.log(
        `round ${r + 1}: ${face} ${x!.rate}/s (${x!.daemonCpuUs} µs daemon CPU, ${x!.benchCpuUs} µs bench CPU each), ` +
          (sock ? `socket ${sock.rate}/s (${sock.daemonCpuUs} µs daemon CPU each), ` : "") +
          `sqlite ${b!.rate}/s (p99 ${b!.p99} ms), ratio ${ratio.toFixed(2)}; ` +
          `at ${PACED_RATE}/s p50 ${p.answered.p50} ms p99 ${p.answered.p99} ms (deliver p99 ${p.delivered.p99}, ack p99 ${p.acked.p99}; ` +
          `the bench's own loop delay p99 ${p.benchLoopDelay.p99}); ` +
          `other processes used ${x!.otherCpus}, ${b!.otherCpus}, ${p.otherCpus} CPUs`,
      );
    }
    // What HTTP itself adds a request, measured once after the rounds (bare servers, no roost).
    let floor: HttpFloor | null = null;
    if (face === "http") {
      floor = await httpFloor(d.token, HTTP_SOCKETS);
      ctx.log(
        `the floor: a bare node:http server ${floor.httpUs} µs of CPU a request, a bare JSON-lines server ${floor.linesUs} µs`,
      );
    }
    const errors = [...track.errors.values()].reduce((s, n) => s + n, 0);
    if (errors > 0)
      throw new Error(
        `${errors} error answers (${[...track.errors].join(", ")}); the first: ${track.firstError}`,
      );

    const ratio = median(rounds.map((r) => r.ratio));
    const p99 = median(rounds.map((r) => r.paced.answered.p99));
    const figures: Figure[] = [
      withRounds(
        ratioAtLeast(
          S,
          "replies saved/s",
          "/s",
          median(rounds.map((r) => r.roost.rate)),
          median(rounds.map((r) => r.baseline.rate)),
          ratio,
          TARGET_RATIO,
        ),
        rounds.map((r) => r.roost.rate),
      ),
      // Beside it, the disk's own tail: the p99 of one synced one-row commit (the baseline's).
      withRounds(
        ratioHeld(
          withBaseline(
            S,
            `p99 saved, at ${PACED_RATE}/s`,
            "ms",
            p99,
            median(rounds.map((r) => r.baseline.p99)),
            median(rounds.map((r) => round(r.paced.answered.p99 / r.baseline.p99, 2))),
          ),
          "≤",
          TARGET_P99_TIMES,
        ),
        rounds.map((r) => r.paced.answered.p99),
      ),
      withBaseline(
        S,
        `p50 saved, at ${PACED_RATE}/s`,
        "ms",
        median(rounds.map((r) => r.paced.answered.p50)),
        median(rounds.map((r) => r.baseline.p50)),
      ),
      info(S, `p99 delivered, at ${PACED_RATE}/s`, "ms", median(rounds.map((r) => r.paced.delivered.p99))),
      info(S, `p99 ack stored, at ${PACED_RATE}/s`, "ms", median(rounds.map((r) => r.paced.acked.p99))),
      info(
        S,
        `the bench's own loop delay p99, at ${PACED_RATE}/s`,
        "ms",
        median(rounds.map((r) => r.paced.benchLoopDelay.p99)),
      ),
      info(S, "p99 saved, closed loop", "ms", median(rounds.map((r) => r.roost.p99))),
      info(S, "daemon CPU per reply", "µs", median(rounds.map((r) => r.roost.daemonCpuUs))),
    ];
    if (face === "http") {
      // The socket's closed loop of the same rounds, in the baseline column: HTTP ÷ socket.
      const vs = (name: string, unit: string, pick: (c: Closed) => number): Figure =>
        withBaseline(
          S,
          name,
          unit,
          median(rounds.map((r) => pick(r.roost))),
          median(rounds.map((r) => pick(r.socket!))),
          median(rounds.map((r) => round(pick(r.roost) / pick(r.socket!), 3))),
        );
      figures.push(
        ratioHeld(
          vs("HTTP vs socket (baseline column): saved/s", "/s", (c) => c.rate),
          "≥",
          TARGET_HTTP_SHARE,
        ),
        vs("HTTP vs socket: daemon CPU per reply", "µs", (c) => c.daemonCpuUs),
        vs("HTTP vs socket: p50 saved, closed loop", "ms", (c) => c.p50),
        vs("HTTP vs socket: bench CPU per reply", "µs", (c) => c.benchCpuUs),
      );
      // The best share a face on node:http could reach: the socket's CPU a reply, over it and what
      // a bare node:http server spends a request more than a bare JSON-lines server.
      const socketUs = median(rounds.map((r) => r.socket!.daemonCpuUs));
      figures.push(
        withBaseline(
          S,
          "the floor: CPU a request, bare node:http (baseline column: bare JSON lines)",
          "µs",
          floor!.httpUs,
          floor!.linesUs,
        ),
        info(
          S,
          "the floor: best HTTP vs socket on node:http",
          "",
          round(socketUs / (socketUs + floor!.extraUs), 2),
        ),
      );
    }
    return {
      figures,
      detail: {
        face,
        jobs: JOBS,
        hubConnections: face === "http" ? HTTP_SOCKETS : HUBS,
        inFlight: slots.length,
        measureMs: MEASURE_MS,
        pacedRate: PACED_RATE,
        pacedMs: PACED_MS,
        rounds,
        httpConnectionsMade: httpHub?.connectionsMade,
        ...(floor ? { httpFloor: floor } : {}),
        daemonRssMiB: round(rssMiB(d.pid), 1),
      },
    };
  } finally {
    for (const c of conns) c.close();
    httpHub?.close();
    db.close();
  }
}

export const replies: Scenario = {
  name: "replies",
  aliases: ["reply", "durable-replies"],
  title: "durable replies over the socket, against one-row SQLite transactions",
  run: (ctx) => run(ctx, "socket"),
};

export const repliesHttp: Scenario = {
  name: "replies-http",
  aliases: ["http-replies"],
  title:
    "durable replies over HTTP (POST /api/reply, keep-alive), against one-row SQLite transactions and the socket",
  run: (ctx) => run(ctx, "http"),
};
