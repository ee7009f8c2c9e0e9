/**
 * Start: `roost daemon` started → its socket answering a `list` (all 10,000 rows), with a store of
 * 10,000 ended jobs and 100,000 replies (3,000 of them pending). The store is made and filled
 * through server/store's `Store`, as the daemon makes and writes it. Five runs each way, the median:
 *
 * - cold: the pty host is not running (after a reboot): the daemon starts one;
 * - warm: the pty host is running (a daemon restart, the usual case).
 *
 * No baseline is asked for; for reading the figure on a noisy machine, a bare Node process
 * (bench/baseline-server.ts) started → its socket answering one line is measured alongside.
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Store } from "../../server/store/store.js";
import { endedJob } from "../../test/helpers/ended-jobs.js";
import { type Figure, info, withBaseline } from "../figures.js";
import { BenchDaemon, startBaselineServer, stopChild, tempDir } from "../harness.js";
import { type Conn, connectWhenReady } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { cpuMs, median, round, rssMiB } from "../stats.js";

const JOBS = 10_000;
const REPLIES_PER_JOB = 10;
const PENDING_EVERY = 10; // every 10th job has its last 3 replies pending
const PENDING_PER_JOB = 3;
const FEED = 1000;
const RUNS = 5;
const TARGET_MS = 1000;

/**
 * Fills a new store through the store's own code (server/store's `Store`, as the daemon writes it):
 * jobs, replies (some pending), their request ids, the feed. Its schema is the store's own, at its
 * newest migration, so that a migration cannot leave this fill behind.
 */
function fill(dbFile: string): void {
  const store = new Store(dbFile);
  const start = Date.now() - JOBS * 60_000;
  try {
    store.batch(() => {
      for (let i = 1; i <= JOBS; i++) {
        const t = start + i * 60_000;
        const task = `fix the flaky test in test/daemon/bridge/limits.test.ts and explain the cause (${i})`;
        const { job } = store.createJob((num) => endedJob(`j${num}`, i, task, t), null);
        let seq = 0;
        for (let n = 1; n <= REPLIES_PER_JOB; n++) {
          const pending = i % PENDING_EVERY === 0 && n > REPLIES_PER_JOB - PENDING_PER_JOB;
          const reply = {
            text: n === 1 ? task : `reply ${n}: yes, go ahead, and keep the public API as it is`,
            mode: n % 4 === 0 ? ("steer" as const) : null,
            requestId: `req-${i}-${n}`,
          };
          // Taken (`handled`) unless pending: what a delivered and acked reply looks like.
          seq = store.addReply(job.id, reply, !pending);
        }
        store.updateJob({ ...job, lastSeq: seq });
      }
      for (let i = JOBS - FEED + 1; i <= JOBS; i++) {
        store.addEvent({ id: `j${i}`, kind: "exit", text: "exited with code 0", who: "roost", whoId: null });
      }
    });
  } finally {
    store.close();
  }
}

interface Run {
  /** Started → a connection accepted; → the `list` answered in full (ms). */
  socketMs: number;
  listMs: number;
  rows: number;
  /** A second `list` on the same connection: the list's own cost, the daemon started. */
  listAgainMs: number;
  /** The daemon's CPU time (every thread's) when the socket accepted, and when the list was answered. */
  cpuAtSocketMs: number;
  cpuAtListMs: number;
  listBytes: number;
  /** RSS once the socket accepts, and once the list is answered (MiB). */
  rssAtSocketMiB: number;
  rssMiB: number;
}

async function timedStart(d: BenchDaemon): Promise<Run> {
  const t0 = performance.now();
  d.launch();
  const conn = await connectWhenReady(d.socket, 15000, () => d.exitReason());
  const t1 = performance.now();
  const [rssAtSocket, cpuAtSocket] = [rssMiB(d.pid), cpuMs(d.pid)];
  const first = await listRaw(conn);
  const t2 = performance.now();
  const [rss, cpuAtList] = [rssMiB(d.pid), cpuMs(d.pid)];
  // The same again, the daemon started: what the list costs alone.
  const t3 = performance.now();
  await listRaw(conn);
  const listAgainMs = performance.now() - t3;
  conn.close();
  const answer = JSON.parse(first) as { ok: boolean; result?: { rows: unknown[] }; error?: string };
  if (!answer.ok) throw new Error(`list failed: ${answer.error}`);
  await d.stop();
  return {
    socketMs: round(t1 - t0, 1),
    listMs: round(t2 - t0, 1),
    rows: answer.result!.rows.length,
    listAgainMs: round(listAgainMs, 1),
    cpuAtSocketMs: Math.round(cpuAtSocket),
    cpuAtListMs: Math.round(cpuAtList),
    listBytes: Buffer.byteLength(first),
    rssAtSocketMiB: round(rssAtSocket, 1),
    rssMiB: round(rss, 1),
  };
}

/**
 * A `list`, its answer's bytes collected until its newline: parsing 9 MB is the benchmark's work,
 * not the daemon's, and is done after the clock stops.
 */
function listRaw(conn: Conn): Promise<string> {
  const socket = conn.socket;
  socket.removeAllListeners("data");
  const parts: Buffer[] = [];
  return new Promise((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        parts.push(chunk);
        return;
      }
      parts.push(chunk.subarray(0, nl));
      socket.removeAllListeners("data");
      resolve(Buffer.concat(parts).toString("utf8"));
    });
    socket.write(`${JSON.stringify({ id: 1, op: "list", args: {} })}\n`);
  });
}

/** A bare Node process started → its socket answering one line. */
async function bareStart(dir: string, i: number): Promise<number> {
  const socket = path.join(dir, `bare-${i}.sock`);
  const t0 = performance.now();
  const child = startBaselineServer(socket);
  const conn = await connectWhenReady(socket, 15000);
  await conn.request("list");
  const ms = performance.now() - t0;
  conn.close();
  await stopChild(await child);
  return round(ms, 1);
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = BenchDaemon.create({ profileDir: ctx.profileDir });
  const dbFile = path.join(d.home, "roost.db");
  const f0 = performance.now();
  fill(dbFile);
  ctx.log(
    `filled with ${JOBS} jobs, ${JOBS * REPLIES_PER_JOB} replies in ${Math.round(performance.now() - f0)} ms`,
  );

  const cold: Run[] = [];
  const warm: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    await d.stopPtyHost();
    cold.push(await timedStart(d));
    if (cold[i]!.rows !== JOBS) throw new Error(`list gave ${cold[i]!.rows} rows, not ${JOBS}`);
  }
  for (let i = 0; i < RUNS; i++) warm.push(await timedStart(d));
  const bareDir = tempDir("roost-bench-bare-");
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) bare.push(await bareStart(bareDir, i));
  ctx.log(`cold ${cold.map((r) => r.listMs).join(", ")} ms; warm ${warm.map((r) => r.listMs).join(", ")} ms`);
  ctx.log(`bare node ${bare.join(", ")} ms`);

  const bareMs = median(bare);
  const coldMs = median(cold.map((r) => r.listMs));
  const warmMs = median(warm.map((r) => r.listMs));
  const figure = (name: string, ms: number): Figure => ({
    ...withBaseline("start", name, "ms", ms, bareMs, round(ms / bareMs, 2)),
    target: `< ${TARGET_MS} ms`,
    met: ms < TARGET_MS,
  });
  const note = (name: string, unit: string, roost: number) => info("start", name, unit, roost);
  return {
    figures: [
      figure("start → list, pty host down", coldMs),
      figure("start → list, pty host up", warmMs),
      note("start → socket accepts (host up)", "ms", median(warm.map((r) => r.socketMs))),
      note("a list of 10,000 rows, started", "ms", median(warm.map((r) => r.listAgainMs))),
      note("daemon CPU time, start → list (host up)", "ms", median(warm.map((r) => r.cpuAtListMs))),
      note("daemon RSS after start and list", "MiB", median(warm.map((r) => r.rssMiB))),
    ],
    detail: {
      jobs: JOBS,
      replies: JOBS * REPLIES_PER_JOB,
      pending: (JOBS / PENDING_EVERY) * PENDING_PER_JOB,
      listBytes: warm[0]?.listBytes,
      cold,
      warm,
      bareNodeMs: bare,
    },
  };
}

export const startScenario: Scenario = {
  name: "start",
  aliases: ["startup"],
  title: "start with 10,000 jobs and 100,000 replies in the store",
  run,
};
