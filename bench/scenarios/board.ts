/**
 * Board: 50 sessions racing to claim 200 tasks with dependencies (docs/protocol.md, "The task
 * board"). The hub adds 200 tasks (the board's limit), each after 0–2 of the 20 before it
 * (a DAG some levels deep); then 50 inert jobs, each spoken for on a raw connection, work the
 * board as an agent is told to: `claim` with `next` (roost picks the oldest task the session may
 * claim and claims it in the same step), mark the one won done at once, and claim next again;
 * answered `not_found` (what is left waits on tasks others hold), read the board, and claim next
 * again after 5 ms; until none is open. Figures: claims won per second, the claim's answer (p50,
 * p99; every claim, the ones answered none too), how many claims lost the race (refused `conflict`,
 * `blocked` or `bad_request`: none should, as no session picks a task itself), how many found none
 * yet, and the checks: no task done twice (each won once and done once, the board all done) and
 * none claimed before its `after` was done (0). Targets: on roost.db's board the claim's p99 and
 * the daemon's CPU a task; on PostgreSQL the claim's p50. (Before `next`, each
 * session read the board and raced for a task picked at random: 1,281 lost races for 200 tasks.)
 * No baseline does what the board does (a claim's rules, saved, fed, pushed); beside it, the floor:
 * a bare server answering as many requests with the same board as every `task` answer carries it
 * (`bareFloor`), what writing and reading the answers alone costs.
 *
 * Run twice in the same run: on roost.db's board, then on a board in PostgreSQL (docs/fleet.md; a
 * server of Debian's started for it on a temp directory), whose figures say "on PostgreSQL".
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { BoardTask } from "../../sdk/ts/protocol/ops/task.js";
import { startPostgres } from "../../test/helpers/postgres.js";
import { type Figure, info, underTarget } from "../figures.js";
import {
  BenchDaemon,
  dispatchJobs,
  INERT_CONFIG,
  type InertJob,
  sleep,
  startBaselineServer,
  stopChild,
  tempDir,
} from "../harness.js";
import { Conn } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { Contention, cpuMs, median, percentile, round } from "../stats.js";

const SESSIONS = 50;
const TASKS = 200; // LIMITS.boardTasks
/** Each task waits on up to this many of the WINDOW tasks before it. */
const MAX_AFTER = 2;
const WINDOW = 20;
const POLL_MS = 5;
/** On roost.db's board: the claim's p99, and the daemon's CPU a task; on PostgreSQL, the claim's p50. */
const TARGET_P99_MS = 5;
const TARGET_CPU_MS = 0.5;
const TARGET_PG_P50_MS = 10;

/** The tasks' `after`, made the same way every run (a fixed seed): task i+1 waits on these. */
function dependencies(): number[][] {
  let seed = 47;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: TASKS }, (_, i) => {
    const n = i === 0 ? 0 : Math.floor(rand() * (MAX_AFTER + 1));
    const after = new Set<number>();
    for (let k = 0; k < n; k++) after.add(Math.max(1, i - Math.floor(rand() * WINDOW)));
    return [...after].sort((a, b) => a - b);
  });
}

/** The longest chain of tasks each waiting on the one before: no claim order does better than its length in rounds. */
function longestChain(after: number[][]): number {
  const depth: number[] = [];
  for (const [i, deps] of after.entries()) depth[i] = 1 + Math.max(0, ...deps.map((a) => depth[a - 1]!));
  return Math.max(...depth);
}

interface Tally {
  claimMs: number[];
  won: Map<number, number>;
  doneOk: Map<number, number>;
  lost: number;
  /** Claims answered `not_found`: nothing the session could claim yet (what is left waits on others). */
  none: number;
  errors: string[];
  lists: number;
}

/** One session working the board until none is open: claim next, done, again. */
async function work(job: InertJob, conn: Conn, tally: Tally): Promise<void> {
  const bump = (m: Map<number, number>, id: number) => m.set(id, (m.get(id) ?? 0) + 1);
  for (;;) {
    const t0 = performance.now();
    const a = await conn.request("task", { action: "claim", next: true });
    tally.claimMs.push(performance.now() - t0);
    if (a.ok) {
      const won = (a.result as { task: BoardTask }).task.id;
      bump(tally.won, won);
      const done = await conn.request("task", { action: "done", id: won, result: `by ${job.id}` });
      if (done.ok) bump(tally.doneOk, won);
      else tally.errors.push(`done #${won}: ${done.code}: ${done.error}`);
      continue;
    }
    if (a.code === "conflict" || a.code === "blocked" || a.code === "bad_request") {
      tally.lost++;
      continue;
    }
    if (a.code !== "not_found") {
      tally.errors.push(`claim next: ${a.code}: ${a.error}`);
      return;
    }
    tally.none++;
    const listed = await conn.request("task", { action: "list" });
    tally.lists++;
    if (!listed.ok) {
      tally.errors.push(`list: ${listed.code}: ${listed.error}`);
      return;
    }
    if (!(listed.result as { tasks: BoardTask[] }).tasks.some((t) => t.state === "open")) return;
    await sleep(POLL_MS);
  }
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const sqlite = await runOn(ctx, null);
  ctx.log("the same on a board in PostgreSQL");
  const pg = await startPostgres();
  try {
    const url = await pg.database("bench");
    const onPg = await runOn(ctx, { url, name: "bench" });
    return {
      figures: [...sqlite.figures, ...onPg.figures],
      detail: { ...sqlite.detail, postgres: onPg.detail },
    };
  } finally {
    pg.cleanup();
  }
}

/** One race, on roost.db's board (`board` null) or on a PostgreSQL one. */
async function runOn(
  ctx: ScenarioContext,
  board: { url: string; name: string } | null,
): Promise<ScenarioResult> {
  const config = board ? { ...INERT_CONFIG, board } : INERT_CONFIG;
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir, config });
  const on = board ? " on PostgreSQL" : "";
  const conns: Conn[] = [];
  try {
    const hub = await d.connect();
    conns.push(hub);
    const after = dependencies();
    const chain = longestChain(after);
    ctx.log(
      `adding ${TASKS} tasks (${after.filter((a) => a.length).length} wait on others; the longest chain ${chain})`,
    );
    for (const [i, deps] of after.entries())
      await hub.ok("task", {
        action: "add",
        title: `task ${i + 1}`,
        ...(deps.length ? { after: deps } : {}),
      });

    ctx.log(`dispatching ${SESSIONS} sessions`);
    const jobs = await dispatchJobs(d, "inert", SESSIONS, 8);
    const sessions: { job: InertJob; conn: Conn }[] = [];
    for (const job of jobs) {
      const conn = await d.connect();
      conns.push(conn);
      await conn.ok("hello", { protocol: 1, agent: { name: "bench-board", version: "1" } });
      await conn.ok("report", { id: job.id, token: job.token, report: { state: "working" } });
      sessions.push({ job, conn });
    }

    ctx.log(`${SESSIONS} sessions racing for ${TASKS} tasks`);
    const tally: Tally = {
      claimMs: [],
      won: new Map(),
      doneOk: new Map(),
      lost: 0,
      none: 0,
      errors: [],
      lists: 0,
    };
    const contention = new Contention([d.pid, "self"]);
    const c0 = cpuMs(d.pid);
    const t0 = performance.now();
    await Promise.all(sessions.map((s) => work(s.job, s.conn, tally)));
    const wall = performance.now() - t0;
    const cpu = cpuMs(d.pid) - c0;
    const busy = contention.end();

    // The checks: each task won once and done once, the board all done, none claimed early.
    const { tasks } = (await hub.ok("task", { action: "list" })) as { tasks: BoardTask[] };
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const twice = [...tally.won.values(), ...tally.doneOk.values()].filter((n) => n > 1).length;
    const notDone = tasks.filter((t) => t.state !== "done").length + (TASKS - tasks.length);
    const early = tasks.filter((t) =>
      t.after.some((a) => Date.parse(t.claimedAt ?? "") < Date.parse(byId.get(a)?.doneAt ?? "")),
    ).length;
    const wonCount = [...tally.won.values()].reduce((a, b) => a + b, 0);
    const rate = (wonCount / wall) * 1000;
    ctx.log(
      `${board ? "PostgreSQL: " : "SQLite: "}${wonCount} claims won in ${round(wall / 1000, 2)} s (${round(rate, 0)}/s), ${tally.lost} lost the race, ${tally.none} found none yet, ` +
        `${tally.lists} board reads; claim p50 ${round(median(tally.claimMs), 2)} ms, ` +
        `p99 ${round(percentile(tally.claimMs, 99), 2)} ms; done twice ${twice}, not done ${notDone}, ` +
        `claimed before its after ${early}; other processes used ${busy.otherCpus} CPUs`,
    );
    if (tally.errors.length) throw new Error(`refused: ${tally.errors.slice(0, 3).join("; ")}`);
    const S = "board";
    const checks: Figure = {
      scenario: S,
      name: `tasks done twice, not done, or claimed before their after${on}`,
      unit: "",
      roost: twice + notDone + early,
      baseline: null,
      ratio: null,
      target: "0",
      met: twice + notDone + early === 0,
    };
    const asked = tally.claimMs.length + tally.doneOk.size + tally.lists;
    const floor = board ? null : await bareFloor(ctx, tasks, asked);
    const figures: Figure[] = [
      info(S, `claims won/s (${SESSIONS} sessions, ${TASKS} tasks)${on}`, "/s", round(rate, 0)),
      board
        ? underTarget(S, `claim's answer, p50${on}`, "ms", round(median(tally.claimMs), 2), TARGET_PG_P50_MS)
        : info(S, `claim's answer, p50${on}`, "ms", round(median(tally.claimMs), 2)),
      board
        ? info(S, `claim's answer, p99${on}`, "ms", round(percentile(tally.claimMs, 99), 2))
        : underTarget(
            S,
            `claim's answer, p99${on}`,
            "ms",
            round(percentile(tally.claimMs, 99), 2),
            TARGET_P99_MS,
          ),
      info(S, `claims that lost the race (conflict, blocked, done meanwhile)${on}`, "", tally.lost),
      info(S, `claims next that found none yet (what is left waits on others)${on}`, "", tally.none),
      board
        ? info(S, `daemon CPU per task (its reads, claims, done)${on}`, "ms", round(cpu / TASKS, 2))
        : underTarget(
            S,
            "daemon CPU per task (its reads, claims, done)",
            "ms",
            round(cpu / TASKS, 2),
            TARGET_CPU_MS,
          ),
      ...(floor
        ? [
            info(
              S,
              `the floor: a bare server's CPU per task, the same ${asked} answers`,
              "ms",
              floor.cpuPerTask,
            ),
            info(S, "the floor: a bare server's answer, p50", "ms", floor.p50),
            info(S, "the floor: a bare server's answer, p99", "ms", floor.p99),
          ]
        : []),
      checks,
    ];
    return {
      figures,
      detail: {
        sessions: SESSIONS,
        tasks: TASKS,
        waiting: after.filter((a) => a.length).length,
        longestChain: chain,
        won: wonCount,
        lost: tally.lost,
        none: tally.none,
        lists: tally.lists,
        claims: tally.claimMs.length,
        twice,
        notDone,
        early,
        wallMs: round(wall, 0),
        daemonCpuMs: round(cpu, 0),
        ...(floor ? { floor } : {}),
        ...busy,
      },
    };
  } finally {
    for (const c of conns) c.close(); // the runner ends the daemon
  }
}

/**
 * What answering alone costs: a bare JSON-lines server (bench/baseline-server.ts) answers as many
 * requests, from as many connections one at a time each, with the board's 200 tasks as every
 * `task` answer carries them, written as they are. Its CPU per task and answer p99 are the floor
 * under the daemon's (the protocol answers the whole board to every action).
 */
async function bareFloor(
  ctx: ScenarioContext,
  tasks: BoardTask[],
  asked: number,
): Promise<{ cpuPerTask: number; p50: number; p99: number }> {
  const dir = tempDir("roost-bench-board-floor-");
  const resultFile = path.join(dir, "result.json");
  fs.writeFileSync(resultFile, JSON.stringify({ tasks }));
  const server = await startBaselineServer(path.join(dir, "bare.sock"), resultFile);
  const conns = await Promise.all(
    Array.from({ length: SESSIONS }, () => Conn.connect(path.join(dir, "bare.sock"))),
  );
  try {
    ctx.log(`the floor: a bare server answering ${asked} requests with the board, ${SESSIONS} connections`);
    const ms: number[] = [];
    const c0 = cpuMs(server.pid!);
    await Promise.all(
      conns.map(async (conn, i) => {
        for (let k = i; k < asked; k += SESSIONS) {
          const t0 = performance.now();
          await conn.request("task", { action: "claim", next: true });
          ms.push(performance.now() - t0);
        }
      }),
    );
    const cpu = cpuMs(server.pid!) - c0;
    return {
      cpuPerTask: round(cpu / TASKS, 2),
      p50: round(median(ms), 2),
      p99: round(percentile(ms, 99), 2),
    };
  } finally {
    for (const c of conns) c.close();
    await stopChild(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const boardScenario: Scenario = {
  name: "board",
  aliases: ["tasks"],
  title: "board: 50 sessions racing to claim 200 tasks with dependencies, on SQLite and on PostgreSQL",
  run,
};
