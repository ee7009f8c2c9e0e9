/**
 * A job's life (control-plane.md, "The hub's ops"): dispatch, start, exit, stop, rm, respawn, and
 * finding the jobs again when the daemon starts ("Jobs outlive the daemon").
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type OpArgs, RoostError, type Row } from "../../sdk/ts/protocol/index.js";
import { blockedPatterns } from "../config.js";
import { expandHome, jobDir } from "../paths.js";
import type { JobRecord, Launch } from "../store/records.js";
import type { Core, ExitInfo } from "./core.js";
import { type Actor, ROOST } from "./feed.js";
import { EMPTY_REPORT, type LiveJob } from "./registry.js";
import { onScreen } from "./screens.js";
import { serialPer } from "./serial.js";
import { excerpt, oneLine } from "./text.js";
import { terminalStarted } from "./typist.js";

/** Without output this long, a terminal agent is idle (its row says so; follow-ups are typed). */
export const DEFAULT_QUIET_MS = 1500;

const RESERVED_NAMES = new Set(["concierge"]);
const ENDED: ReadonlySet<Row["life"]> = new Set(["exited", "stopped"]);

export const isEnded = (job: LiveJob) => ENDED.has(job.rec.life);

/**
 * A job's life changes one at a time (start, stop, respawn, rm): two that cross would start two
 * processes for one job, or one for a job already removed. Each waits for the one under way, and
 * one for a job removed meanwhile is not_found.
 */
const lifeChanges = serialPer<LiveJob>();

function oneAtATime<T>(core: Core, job: LiveJob, change: () => Promise<T>): Promise<T> {
  return lifeChanges(job, () => {
    if (core.registry.find(job.rec.id) !== job)
      throw new RoostError("not_found", `${job.rec.id} was removed meanwhile`);
    return change();
  });
}

export function checkName(name: string): string {
  const folded = oneLine(name);
  if (!folded) throw new RoostError("bad_request", "name is empty once folded to one line");
  if (RESERVED_NAMES.has(folded.toLowerCase())) {
    throw new RoostError("bad_request", `name ${JSON.stringify(folded)} is reserved for roost's own agent`);
  }
  return folded;
}

export async function dispatch(
  core: Core,
  args: OpArgs<"dispatch">,
  actor: Actor,
): Promise<{ job: Row; duplicate?: boolean }> {
  if (args.requestId) {
    const id = core.store.jobForDispatchRequest(args.requestId);
    const existing = id ? core.registry.find(id) : undefined;
    if (existing) return { job: core.registry.row(existing), duplicate: true };
  }
  const profile = core.config.profiles[args.profile];
  if (!profile) {
    const known = Object.keys(core.config.profiles).sort().join(", ");
    throw new RoostError(
      "bad_request",
      `no profile ${JSON.stringify(args.profile)}; the profiles are: ${known}`,
    );
  }
  const cwd = checkCwd(args.cwd ?? profile.cwd ?? os.homedir());
  const name = args.name === undefined ? null : checkName(args.name);
  const taskMode = profile.task ?? "type";
  const task = args.task?.trim() ? args.task : undefined;
  const launch: Launch = {
    command: task !== undefined && taskMode === "argv" ? [...profile.command, task] : [...profile.command],
    cwd,
    env: profile.env ?? {},
    task: taskMode,
    protocol: profile.protocol ?? false,
    blockedPatterns: blockedPatterns(profile),
    quietMs: profile.quietMs ?? DEFAULT_QUIET_MS,
  };
  const now = new Date().toISOString();
  const firstReply = task !== undefined && taskMode === "type" ? { text: task, mode: null } : null;
  const rec = core.store.createJob((num) => {
    const record: JobRecord = {
      id: `j${num}`,
      token: randomBytes(24).toString("base64url"),
      profile: args.profile,
      launch,
      userName: name,
      defaultName: task !== undefined ? excerpt(task, 60) : args.profile,
      role: null,
      parent: null,
      pinned: false,
      order: core.registry.topOrder(),
      life: "starting",
      exitCode: null,
      pid: null,
      kind: "terminal",
      agent: null,
      capabilities: [],
      report: null,
      lastSeq: 0,
      dispatchRequestId: args.requestId ?? null,
      createdAt: now,
      startedAt: null,
      endedAt: null,
      updatedAt: now,
    };
    return record;
  }, firstReply);
  const job = core.registry.add(rec, firstReply ? 1 : 0);
  core.feed.record(
    rec.id,
    "dispatch",
    `${args.profile}${task !== undefined ? `: ${excerpt(task)}` : ""}`,
    actor,
  );
  await start(core, job);
  return { job: core.registry.row(job) };
}

function checkCwd(dir: string): string {
  const abs = expandHome(dir);
  if (!path.isAbsolute(abs))
    throw new RoostError("bad_request", `cwd ${JSON.stringify(dir)} must be an absolute path`);
  let isDir = false;
  try {
    isDir = fs.statSync(abs).isDirectory();
  } catch {}
  if (!isDir) throw new RoostError("bad_request", `cwd ${JSON.stringify(dir)} is not a directory`);
  return abs;
}

/** The job's environment: roost's names and the older ones, with the same values. */
function jobEnv(core: Core, rec: JobRecord): Record<string, string> {
  const identity = {
    JOB_ID: rec.id,
    JOB_TOKEN: rec.token,
    SOCKET: core.paths.socket,
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
    const terminals = await core.terminals();
    const [file, ...args] = rec.launch.command as [string, ...string[]];
    const { pid } = await terminals.spawn({
      jobId: rec.id,
      file,
      args,
      cwd: rec.launch.cwd,
      env: jobEnv(core, rec),
      cols: 120,
      rows: 40,
      quietMs: rec.launch.quietMs ?? DEFAULT_QUIET_MS,
    });
    Object.assign(rec, { life: "running", pid, startedAt: new Date().toISOString() });
    core.registry.changed(job, true);
    core.feed.record(rec.id, "start", `started ${excerpt(rec.launch.command.join(" "))} (pid ${pid})`, ROOST);
    if (!rec.launch.protocol) terminalStarted(core, job);
  } catch (err) {
    ended(core, job, null, `could not start: ${(err as Error).message}`);
  }
}

/** The process ended (the pty host said so, now or while the daemon was down). */
export function onExit(core: Core, info: ExitInfo): void {
  const job = core.registry.find(info.jobId);
  if (!job || isEnded(job)) return;
  const code = info.signal ? 128 + info.signal : info.exitCode;
  ended(core, job, code, null, info.at);
}

function ended(core: Core, job: LiveJob, code: number | null, reason: string | null, at?: string): void {
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
    if (failed) report.error = reason ?? `exited with code ${code}`;
  }
  if (stopped) report.question = null;
  rec.report = report;
  job.link = null;
  job.stopping = null;
  core.registry.changed(job, true);
  const text = stopped ? "stopped" : (reason ?? `exited with code ${code}`);
  core.viewers.ended(rec.id, text);
  core.feed.record(rec.id, stopped ? "stop" : "exit", text, stoppedBy ?? ROOST);
  for (const resolve of job.exitWaiters.splice(0)) resolve();
  void core
    .terminals()
    .then((t) => t.forget(rec.id))
    .catch(() => {});
}

/** SIGTERM, then SIGKILL after the grace; resolves once the process has ended. */
export function stop(core: Core, job: LiveJob, actor: Actor): Promise<void> {
  return oneAtATime(core, job, () => stopNow(core, job, actor));
}

async function stopNow(core: Core, job: LiveJob, actor: Actor): Promise<void> {
  if (isEnded(job)) return;
  job.stopping = actor;
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

export function remove(core: Core, job: LiveJob, actor: Actor): Promise<void> {
  return oneAtATime(core, job, async () => {
    await stopNow(core, job, actor);
    core.store.deleteJob(job.rec.id);
    core.registry.remove(job);
    fs.rmSync(jobDir(core.paths, job.rec.id), { recursive: true, force: true });
    core.feed.record(job.rec.id, "rm", `removed ${job.rec.userName ?? job.rec.defaultName}`, actor);
  });
}

/** Starts the job again under the same id (a running one is stopped first); its seq continues. */
export function respawn(core: Core, job: LiveJob, actor: Actor): Promise<Row> {
  return oneAtATime(core, job, async () => {
    await stopNow(core, job, actor);
    core.feed.record(job.rec.id, "respawn", "respawned", actor);
    await startNow(core, job);
    return core.registry.row(job);
  });
}

/**
 * At daemon start: every job the store has as live is matched with the pty host's terminals.
 * Live ones stay running (their agents reconnect); the exits the host kept, or wrote to the job's
 * directory, are taken once each; a job whose terminal is gone for good is failed, with why.
 */
export async function findJobsAgain(core: Core): Promise<void> {
  const terminals = await core.terminals();
  const { live, exited } = await terminals.list();
  const liveIds = new Map(live.map((l) => [l.jobId, l.pid]));
  for (const info of exited) {
    onExit(core, info);
    await terminals.forget(info.jobId);
  }
  for (const job of core.registry.all()) {
    if (isEnded(job)) continue;
    const pid = liveIds.get(job.rec.id);
    if (pid !== undefined) {
      job.rec.pid = pid;
      job.rec.life = "running";
      core.registry.changed(job, true);
      // Its row from its screen as it is now, and (a terminal agent) its waiting replies typed.
      if (!job.rec.launch.protocol) terminalStarted(core, job);
      void terminals.screen(job.rec.id).then(
        (state) => onScreen(core, state),
        () => {},
      );
      core.feed.record(job.rec.id, "restart", `found running after a daemon restart (pid ${pid})`, ROOST);
      continue;
    }
    const saved = readExitFile(core, job.rec.id);
    if (saved) onExit(core, saved);
    else
      ended(
        core,
        job,
        null,
        "its terminal is gone (the pty host ended or the machine restarted); respawn starts it again",
      );
  }
}

function readExitFile(core: Core, jobId: string): ExitInfo | null {
  try {
    const file = path.join(jobDir(core.paths, jobId), "exit.json");
    const data = JSON.parse(fs.readFileSync(file, "utf8")) as {
      exitCode: number | null;
      signal: number | null;
      at?: string;
    };
    return { jobId, exitCode: data.exitCode, signal: data.signal, at: data.at };
  } catch {
    return null;
  }
}
