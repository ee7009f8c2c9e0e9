/**
 * A job's life (docs/protocol.md, "The hub's ops"): exit, stop, rm; its start and respawn are
 * start.ts's. Each change of a job's life waits for the one under way (two that cross must not
 * both act). Nothing here starts a job, so what stops one (a handback's `done`, typed or sent)
 * imports it without a cycle.
 */
import fs from "node:fs";
import { LIMITS, RoostError, type Row, type StopReason } from "../../../sdk/ts/protocol/index.js";
import { jobDir } from "../../paths.js";
import type { Core, ExitInfo } from "../core.js";
import { type Actor, ROOST } from "../feed.js";
import { clip } from "../text.js";
import { checkRemovable, removeWorktree } from "../worktrees/index.js";
import { reportAsked } from "./asked.js";
import { EMPTY_REPORT, type LiveJob } from "./registry.js";

const ENDED: ReadonlySet<Row["life"]> = new Set(["exited", "stopped"]);

export const isEnded = (job: LiveJob) => ENDED.has(job.rec.life);

/** The job, if it is running (`input`, `resize`, `attach` act only on a live terminal). */
export function runningJob(core: Core, id: string): LiveJob {
  const job = core.registry.get(id);
  if (job.rec.life !== "running")
    throw new RoostError("bad_request", `${id} is not running (${job.rec.life})`);
  // A foreground pi runs in a terminal of its user's: roost holds none of it.
  if (job.rec.kind === "foreground")
    throw new RoostError("bad_request", `${id} is a foreground pi: its terminal is its user's, not roost's`);
  return job;
}

/**
 * A job's life changes one at a time (start, stop, respawn, rm): two that cross would start two
 * processes for one job, or one for a job already removed. Each waits for the one under way (the
 * job's `lifeChanges`), and one for a job removed meanwhile is not_found.
 */
export function oneAtATime<T>(core: Core, job: LiveJob, change: () => Promise<T>): Promise<T> {
  return job.lifeChanges.run(() => {
    if (core.registry.find(job.rec.id) !== job)
      throw new RoostError("not_found", `${job.rec.id} was removed meanwhile`);
    return change();
  });
}

/** The process ended (the pty host said so, now or while the daemon was down). */
export function onExit(core: Core, info: ExitInfo): void {
  const job = core.registry.find(info.jobId);
  if (!job || isEnded(job)) return;
  const code = info.signal ? 128 + info.signal : info.exitCode;
  ended(core, job, code, null, info.at, info.leftovers ?? 0);
}

export function ended(
  core: Core,
  job: LiveJob,
  code: number | null,
  reason: string | null,
  at?: string,
  leftovers = 0,
): void {
  const rec = job.rec;
  const stoppedBy = job.stopping;
  const stopped = stoppedBy !== null;
  const stopWords = job.stopWords;
  Object.assign(rec, {
    life: stopped ? "stopped" : "exited",
    exitCode: code,
    pid: null,
    endedAt: at ?? new Date().toISOString(),
    stopReason: stopped ? job.stopFor : null,
  });
  const report = { ...(rec.report ?? EMPTY_REPORT), status: "idle" as const, waitingFor: null, tool: null };
  // The row's last word: a process that ended without saying done or failed said it by its exit.
  if (!stopped && report.state !== "done" && report.state !== "failed") {
    const failed = reason !== null || code !== 0;
    report.state = failed ? "failed" : "done";
    if (failed) report.error = clip(reason ?? `exited with code ${code}`, LIMITS.error);
  }
  if (stopped) report.question = null;
  const before = rec.report;
  rec.report = report;
  reportAsked(job, before);
  const link = job.link;
  job.link = null;
  job.stopping = null;
  job.stopFor = null;
  job.stopWords = null;
  // Whoever waits for this exit (`stop`, `rm`) is told even should a write below fail: an op that
  // never answers is worse than one that answers `busy`.
  try {
    core.budgets.ended(job); // its running time counted to its end, written with its row
    core.registry.changed(job, true);
    // A respawn's stop is no end: a watch on the job (or on its parent's children) waits for what
    // the job does once started again.
    if (!job.respawning) core.peers.watches.changed(core, rec.id);
    core.schedules.jobChanged(rec.id);
    core.notify.rowChanged(() => core.registry.row(job));
    core.worktrees.changed(job);
    // Nor for the board: the session keeps what it claimed, to finish it.
    if (!job.respawning) core.board.sessionEnded(rec.id, endedWhy(job, stopped));
    const text = stopped
      ? `stopped${rec.stopReason ? `: ${stopWords ?? STOPPED_WHY[rec.stopReason]}` : ""}`
      : (reason ?? `exited with code ${code}`);
    core.viewers.ended(rec.id, text);
    core.feed.record(rec.id, stopped ? "stop" : "exit", text + leftoversText(leftovers), stoppedBy ?? ROOST);
  } finally {
    for (const resolve of job.exitWaiters.splice(0)) resolve();
  }
  // A foreground pi's connection is its user's: it hears `unauthorized` at its next report.
  if (rec.kind !== "foreground") link?.end();
  void core
    .terminals()
    .then((t) => t.forget(rec.id))
    .catch(() => {});
}

/** What the feed says of a job roost stopped by itself, by its reason. */
const STOPPED_WHY: Record<StopReason, string> = {
  budget: "its budget is spent",
  idle: "it had nothing to do (put to sleep; respawn goes on with its conversation)",
};

/** What the feed adds about the processes a job left, which the pty host ended with it. */
const leftoversText = (n: number): string =>
  n === 0 ? "" : `; ${n} leftover ${n === 1 ? "process" : "processes"} ended`;

/** How a session ended, as the board says why its claims went. */
function endedWhy(job: LiveJob, stopped: boolean): string {
  if (stopped) return "was stopped";
  if (job.rec.kind === "foreground") return "did not come back";
  return job.rec.report?.state === "failed" ? "failed" : "exited";
}

/**
 * Why roost stops a job by itself (a budget spent, idle), which its row says while it stays stopped
 * (`stopReason`); `words`: what its feed entry says instead of the reason's words ("put to sleep
 * after 2h…").
 */
export interface StopCause {
  why: StopReason;
  words?: string;
}

/** SIGTERM, then SIGKILL after the grace; resolves once the process has ended. */
export function stop(core: Core, job: LiveJob, actor: Actor, cause: StopCause | null = null): Promise<void> {
  return oneAtATime(core, job, () => stopNow(core, job, actor, cause));
}

export async function stopNow(
  core: Core,
  job: LiveJob,
  actor: Actor,
  cause: StopCause | null = null,
): Promise<void> {
  if (isEnded(job)) return;
  job.stopping = actor;
  job.stopFor = cause?.why ?? null;
  job.stopWords = cause?.words ?? null;
  if (job.rec.kind === "foreground") {
    // No process of roost's to signal: the row ends, and the pi's connection no longer speaks for it.
    ended(core, job, null, null);
    return;
  }
  const exited = new Promise<void>((resolve) => job.exitWaiters.push(resolve));
  const terminals = await core.terminals();
  await terminals.signal(job.rec.id, "SIGTERM").catch(() => {});
  const timer = setTimeout(
    () => void terminals.signal(job.rec.id, "SIGKILL").catch(() => {}),
    core.stopGraceMs,
  );
  await exited;
  clearTimeout(timer);
}

/** What `rm` does with the job's worktree: its branch kept unless asked; uncommitted work kept unless forced. */
export interface RemoveOptions {
  deleteBranch?: boolean;
  force?: boolean;
}

export function remove(core: Core, job: LiveJob, actor: Actor, options: RemoveOptions = {}): Promise<void> {
  return oneAtATime(core, job, async () => {
    const wt = job.rec.worktree;
    const force = options.force ?? false;
    // Refused before anything is done: a worktree with work not committed is not the user's to lose.
    const tree = () => core.worktrees.tree(job);
    if (wt) await checkRemovable(job.rec.id, wt, force, tree);
    core.board.sessionEnded(job.rec.id, "was removed"); // before its stop: its end says "removed"
    await stopNow(core, job, actor);
    // The worktree before the row: a crash between them leaves a row whose rm is done again.
    if (wt)
      await removeWorktree(job.rec.id, wt, { force, deleteBranch: options.deleteBranch ?? false }, tree);
    core.worktrees.forget(job);
    core.peers.watches.changed(core, job.rec.id, true); // "removed" is a stop, and an end
    core.schedules.jobChanged(job.rec.id, true);
    core.store.deleteJob(job.rec.id);
    core.peers.watches.watcherRemoved(job.rec.id);
    core.registry.remove(job);
    core.notify.forget(job.rec.id);
    core.budgets.forget(job.rec.id);
    await core.jobSockets.close(job.rec.id);
    fs.rmSync(jobDir(core.paths, job.rec.id), { recursive: true, force: true });
    const kept = wt && !options.deleteBranch ? ` (its branch ${wt.branch} kept)` : "";
    core.feed.record(job.rec.id, "rm", `removed ${job.rec.userName ?? job.rec.defaultName}${kept}`, actor);
  });
}

/** A reply or peer item reached its receiver: a handback with `done` now stops its child, as `stop` would. */
export function delivered(core: Core, r: { thenStop: string | null }): void {
  if (!r.thenStop) return;
  const child = core.registry.find(r.thenStop);
  if (!child || isEnded(child)) return;
  stop(core, child, ROOST).catch((err) =>
    console.error(`roost: could not stop ${r.thenStop} after its handback:`, err),
  );
}
