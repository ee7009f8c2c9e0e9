/**
 * Overlaps (docs/worktrees.md, "Overlaps"): 20 jobs with worktrees of one repository, each
 * changing its own lines of one shared file (so every pair overlaps: 190 pairs) and a file of its
 * own. The jobs are protocol agents whose program never speaks: the scenario writes in their
 * worktrees as their tools would, and reports for them.
 *
 * - all at once: every job reports `done` at once; the time until every row lists its 19 overlaps
 *   (20 snapshots and 190 merges);
 * - one changed: a job writes a line of its neighbour's (a conflict) or puts it back, then reports
 *   `done`; the time from that report's answer until its row's `overlaps` says so (a snapshot and
 *   19 merges), ROUNDS times: target under 200 ms;
 * - while agents write: every job `working`, each rewriting its own file once a second for
 *   WRITE_S seconds; the daemon's CPU and its git children's (from /proc), as a share of one core.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type Figure, info, underTarget } from "../figures.js";
import { BenchDaemon, procEnv, sleep, tempDir, until } from "../harness.js";
import type { Conn } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { median, percentile, round } from "../stats.js";

const JOBS = 20;
const ROUNDS = 10;
const WRITE_S = 20;
const TARGET_MS = 200;
const GAP = 6; // lines between two jobs' own lines in the shared file: their changes merge cleanly

const CONFIG = {
  agentProfiles: { inert: { command: ["sleep", "600"], task: "type", protocol: true } },
};

interface Job {
  id: string;
  token: string;
  tree: string;
}

const sharedLine = (i: number) => i * GAP;

function makeRepository(dir: string): void {
  const lines = Array.from({ length: JOBS * GAP }, (_, n) => `line ${n}`);
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(path.join(dir, "src/shared.ts"), `${lines.join("\n")}\n`);
  for (let i = 0; i < JOBS; i++)
    fs.writeFileSync(path.join(dir, `src/own${i}.ts`), `export const n = ${i};\n`);
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, ...args], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "b",
        GIT_AUTHOR_EMAIL: "b@b",
        GIT_COMMITTER_NAME: "b",
        GIT_COMMITTER_EMAIL: "b@b",
      },
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "base");
}

/** Rewrites line `n` of the job's shared file. */
function writeShared(job: Job, n: number, text: string): void {
  const file = path.join(job.tree, "src/shared.ts");
  const lines = fs.readFileSync(file, "utf8").split("\n");
  lines[n] = text;
  fs.writeFileSync(file, lines.join("\n"));
}

/** utime + stime, and the reaped children's, of a process, in seconds (proc(5)). */
function cpuOf(pid: number): { own: number; children: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
  const f = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  return { own: (f[11]! + f[12]!) / 100, children: (f[13]! + f[14]!) / 100 };
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const repo = tempDir("roost-bench-repo-");
  makeRepository(repo);
  const d = await BenchDaemon.start({ config: CONFIG, profileDir: ctx.profileDir });
  const conns: Conn[] = [];
  try {
    const hub = await d.connect();
    conns.push(hub);
    // The rows' overlaps as pushed, with when each came.
    const seen = new Map<string, { overlaps: any[]; at: number }>();
    hub.onEvent = (e) => {
      if (e.event === "row") seen.set(e.row.id, { overlaps: e.row.overlaps ?? [], at: performance.now() });
    };
    await hub.ok("subscribe", {});
    ctx.log(`${JOBS} jobs with worktrees`);
    const jobs: Job[] = [];
    for (let i = 0; i < JOBS; i++) {
      const { job } = await hub.ok("dispatch", { profile: "inert", cwd: repo, worktree: true });
      const pid = await until(
        `${job.id}'s pid`,
        async () => (await hub.ok("list", { id: job.id })).rows[0]?.pid,
      );
      const token = await until(`${job.id}'s token`, () => procEnv(pid).ROOST_JOB_TOKEN ?? null);
      jobs.push({ id: job.id, token, tree: job.worktree.path });
    }
    const agents = await Promise.all(jobs.map(() => d.connect()));
    conns.push(...agents);
    const report = (i: number, state: string) =>
      agents[i]!.ok("report", { id: jobs[i]!.id, token: jobs[i]!.token, report: { state } });
    await Promise.all(jobs.map((_, i) => report(i, "working")));
    for (const [i, job] of jobs.entries()) {
      writeShared(job, sharedLine(i), `line ${sharedLine(i)} by ${job.id}`);
      fs.writeFileSync(path.join(job.tree, `src/own${i}.ts`), `export const n = ${i + 100};\n`);
    }

    ctx.log("all at once: every job done");
    const t0 = performance.now();
    await Promise.all(jobs.map((_, i) => report(i, "done")));
    await until(
      "every row's 19 overlaps",
      () => jobs.every((j) => seen.get(j.id)?.overlaps.length === JOBS - 1),
      120_000,
    );
    const allMs = Math.max(...jobs.map((j) => seen.get(j.id)!.at)) - t0;

    ctx.log(`${ROUNDS} rounds: one job changes, its row's overlaps follow`);
    const oneMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Each job twice: a conflict made, then undone.
      const i = Math.floor(r / 2) % JOBS;
      const job = jobs[i]!;
      const conflict = r % 2 === 0;
      const neighbour = sharedLine((i + 1) % JOBS);
      // The neighbour's line, changed otherwise: a conflict; put back: none.
      writeShared(job, neighbour, conflict ? `line ${neighbour} changed by ${job.id}` : `line ${neighbour}`);
      await report(i, "working");
      const began = performance.now();
      await report(i, "done");
      const wanted = (o: any[]) => o.some((x) => x.conflicts.length > 0) === conflict;
      await until(
        `${job.id}'s overlaps ${conflict ? "with" : "without"} a conflict`,
        () => {
          const s = seen.get(job.id);
          return s && s.at >= began && wanted(s.overlaps) ? true : null;
        },
        30_000,
      );
      oneMs.push(seen.get(job.id)!.at - began);
    }

    ctx.log(`${WRITE_S} s of ${JOBS} working jobs writing a file a second each`);
    await Promise.all(jobs.map((_, i) => report(i, "working")));
    const pid = d.proc!.pid!;
    const before = cpuOf(pid);
    const w0 = performance.now();
    for (let s = 0; s < WRITE_S; s++) {
      for (const [i, job] of jobs.entries())
        fs.writeFileSync(path.join(job.tree, `src/own${i}.ts`), `export const n = ${i + 1000 * s};\n`);
      await sleep(1000);
    }
    const after = cpuOf(pid);
    const wallS = (performance.now() - w0) / 1000;
    const daemonPct = ((after.own - before.own) / wallS) * 100;
    const gitPct = ((after.children - before.children) / wallS) * 100;

    const S = "overlaps";
    const figures: Figure[] = [
      info(S, `all ${JOBS} jobs at rest at once: every row's overlaps (190 pairs)`, "ms", round(allMs, 0)),
      underTarget(S, "one job changed: its row's overlaps, p50", "ms", round(median(oneMs), 1), TARGET_MS),
      info(S, "one job changed, worst", "ms", round(percentile(oneMs, 100), 1)),
      info(S, `${JOBS} jobs writing: the daemon's CPU`, "% of a core", round(daemonPct, 1)),
      info(S, `${JOBS} jobs writing: git's CPU (the daemon's children)`, "% of a core", round(gitPct, 1)),
    ];
    return { figures, detail: { allMs, oneMs, daemonPct, gitPct } };
  } finally {
    for (const c of conns) c.close();
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

export const overlapsScenario: Scenario = {
  name: "overlaps",
  aliases: ["overlap"],
  title: `overlap detection for ${JOBS} jobs with worktrees of one repository`,
  run,
};
