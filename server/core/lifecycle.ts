/**
 * A job's life (docs/protocol.md, "The hub's ops"): start, exit, stop, rm, respawn. Each change
 * of a job's life waits for the one under way (two that cross must not both act).
 */
import fs from "node:fs";
import path from "node:path";
import { LIMITS, RoostError, type Row } from "../../sdk/ts/protocol/index.js";
import { jobDir } from "../paths.js";
import { HostGone } from "../pty/client.js";
import { DEFAULT_QUIET_MS } from "../pty/wire.js";
import type { JobRecord } from "../store/records.js";
import type { Core, ExitInfo } from "./core.js";
import { type Actor, ROOST } from "./feed.js";
import { EMPTY_REPORT, type LiveJob } from "./registry.js";
import { BWRAP_WRAPPERS, bwrapArgs, findBwrap, sandboxSocket } from "./sandbox.js";
import { clip, excerpt } from "./text.js";
import { terminalStarted } from "./typist.js";
import { checkRemovable, removeWorktree } from "./worktrees.js";

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
function oneAtATime<T>(core: Core, job: LiveJob, change: () => Promise<T>): Promise<T> {
  return job.lifeChanges.run(() => {
    if (core.registry.find(job.rec.id) !== job)
      throw new RoostError("not_found", `${job.rec.id} was removed meanwhile`);
    return change();
  });
}

/** The job's environment: roost's names and the older ones, with the same values. */
function jobEnv(core: Core, rec: JobRecord): Record<string, string> {
  const identity = {
    JOB_ID: rec.id,
    JOB_TOKEN: rec.token,
    // A sandboxed job reaches roost through its own socket alone: the owner's is hidden from it.
    SOCKET: rec.launch.sandbox ? sandboxSocket(core.paths, rec.id) : core.paths.socket,
    JOB_DIR: jobDir(core.paths, rec.id),
  };
  const old = {
    JOB_ID: "PI_JOB_ID",
    JOB_TOKEN: "PI_JOB_TOKEN",
    SOCKET: "PI_DAEMON_SOCK",
    JOB_DIR: "PI_JOB_DIR",
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, rec.launch.env, { TERM: "xterm-256color", ROOST_HOME: core.paths.home });
  for (const [k, v] of Object.entries(identity)) {
    env[`ROOST_${k}`] = v;
    env[old[k as keyof typeof old]] = v;
  }
  return env;
}

/**
 * Starts a new job's process, or an ended one's again; one that runs already (another request
 * started it meanwhile) is left as it is.
 */
export function start(core: Core, job: LiveJob): Promise<void> {
  return oneAtATime(core, job, async () => {
    if (job.rec.life !== "running") await startNow(core, job);
  });
}

/** Starts (or starts again) the job's process in its own pseudo-terminal, held by the pty host. */
async function startNow(core: Core, job: LiveJob): Promise<void> {
  const rec = job.rec;
  // A foreground pi is started by its user, in a terminal of theirs: its replies wait for it.
  if (rec.kind === "foreground") return;
  const dir = jobDir(core.paths, rec.id);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.rmSync(path.join(dir, "exit.json"), { force: true });
  Object.assign(rec, {
    life: "starting",
    exitCode: null,
    endedAt: null,
    pid: null,
    kind: "terminal",
    report: null,
  });
  job.link = null;
  job.stopping = null;
  core.registry.changed(job, true);
  try {
    const [file, ...args] = await commandOf(core, rec);
    job.size = job.ownSize; // a new terminal has no viewer yet
    const spawn = async () =>
      (await core.terminals()).spawn({
        jobId: rec.id,
        file,
        args,
        cwd: rec.launch.cwd,
        env: jobEnv(core, rec),
        ...job.ownSize,
        quietMs: rec.launch.quietMs ?? DEFAULT_QUIET_MS,
        wrappers: rec.launch.sandbox ? BWRAP_WRAPPERS : 0,
      });
    // A host that went away as the spawn was asked of it (its close not yet seen) started nothing:
    // the job starts on the next host, which the link makes on demand.
    const { pid } = await spawn().catch((err) => {
      if (err instanceof HostGone) return spawn();
      throw err;
    });
    Object.assign(rec, { life: "running", pid, startedAt: new Date().toISOString() });
    core.registry.changed(job, true);
    core.feed.record(rec.id, "start", `started ${excerpt(rec.launch.command.join(" "))} (pid ${pid})`, ROOST);
    if (!rec.launch.protocol) terminalStarted(core, job);
  } catch (err) {
    ended(core, job, null, `could not start: ${(err as Error).message}`);
  }
}

/**
 * What the pty host runs: the job's command, or for a sandboxed job bubblewrap around it, its own
 * socket listening first (so that its agent finds it at once).
 */
async function commandOf(core: Core, rec: JobRecord): Promise<[string, ...string[]]> {
  const sandbox = rec.launch.sandbox;
  if (!sandbox) return rec.launch.command as [string, ...string[]];
  const bwrap = findBwrap(core.bwrap);
  const args = bwrapArgs(core.paths, rec, sandbox);
  await core.jobSockets.open(rec.id);
  return [bwrap, ...args, ...rec.launch.command];
}

/** The process ended (the pty host said so, now or while the daemon was down). */
export function onExit(core: Core, info: ExitInfo): void {
  const job = core.registry.find(info.jobId);
  if (!job || isEnded(job)) return;
  const code = info.signal ? 128 + info.signal : info.exitCode;
  ended(core, job, code, null, info.at);
}

export function ended(
  core: Core,
  job: LiveJob,
  code: number | null,
  reason: string | null,
  at?: string,
): void {
  const rec = job.rec;
  const stoppedBy = job.stopping;
  const stopped = stoppedBy !== null;
  Object.assign(rec, {
    life: stopped ? "stopped" : "exited",
    exitCode: code,
    pid: null,
    endedAt: at ?? new Date().toISOString(),
  });
  const report = { ...(rec.report ?? EMPTY_REPORT), status: "idle" as const, waitingFor: null, tool: null };
  // The row's last word: a process that ended without saying done or failed said it by its exit.
  if (!stopped && report.state !== "done" && report.state !== "failed") {
    const failed = reason !== null || code !== 0;
    report.state = failed ? "failed" : "done";
    if (failed) report.error = clip(reason ?? `exited with code ${code}`, LIMITS.error);
  }
  if (stopped) report.question = null;
  rec.report = report;
  const link = job.link;
  job.link = null;
  job.stopping = null;
  // Whoever waits for this exit (`stop`, `rm`) is told even should a write below fail: an op that
  // never answers is worse than one that answers `busy`.
  try {
    core.registry.changed(job, true);
    core.peers.watches.changed(rec.id);
    core.worktrees.changed(job);
    core.board.sessionEnded(rec.id, endedWhy(job, stopped));
    const text = stopped ? "stopped" : (reason ?? `exited with code ${code}`);
    core.viewers.ended(rec.id, text);
    core.feed.record(rec.id, stopped ? "stop" : "exit", text, stoppedBy ?? ROOST);
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

/** How a session ended, as the board says why its claims went. */
function endedWhy(job: LiveJob, stopped: boolean): string {
  if (stopped) return "was stopped";
  if (job.rec.kind === "foreground") return "did not come back";
  return job.rec.report?.state === "failed" ? "failed" : "exited";
}

/** SIGTERM, then SIGKILL after the grace; resolves once the process has ended. */
export function stop(core: Core, job: LiveJob, actor: Actor): Promise<void> {
  return oneAtATime(core, job, () => stopNow(core, job, actor));
}

async function stopNow(core: Core, job: LiveJob, actor: Actor): Promise<void> {
  if (isEnded(job)) return;
  job.stopping = actor;
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
    core.worktrees.forget(job.rec.id);
    core.peers.watches.changed(job.rec.id, true); // "removed" is a stop, and an end
    core.store.deleteJob(job.rec.id);
    core.peers.watches.watcherRemoved(job.rec.id);
    core.registry.remove(job);
    await core.jobSockets.close(job.rec.id);
    fs.rmSync(jobDir(core.paths, job.rec.id), { recursive: true, force: true });
    const kept = wt && !options.deleteBranch ? ` (its branch ${wt.branch} kept)` : "";
    core.feed.record(job.rec.id, "rm", `removed ${job.rec.userName ?? job.rec.defaultName}${kept}`, actor);
  });
}

/** Starts the job again under the same id (a running one is stopped first); its seq continues. */
export function respawn(core: Core, job: LiveJob, actor: Actor): Promise<Row> {
  if (job.rec.kind === "foreground")
    throw new RoostError(
      "bad_request",
      `${job.rec.id} is a foreground pi: its user starts it, in a terminal of theirs`,
    );
  return oneAtATime(core, job, async () => {
    await stopNow(core, job, actor);
    core.feed.record(job.rec.id, "respawn", "respawned", actor);
    await startNow(core, job);
    return core.registry.row(job);
  });
}
