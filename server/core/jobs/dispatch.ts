/**
 * `dispatch` (docs/protocol.md, "The hub's ops"): a profile, a task, a new job; the first task of
 * a `type` profile is the job's reply seq 1, in the same commit as the job.
 */
import fs from "node:fs";
import path from "node:path";
import { idleStopMs, type OpArgs, RoostError, type Row } from "../../../sdk/ts/protocol/index.js";
import { blockedPatterns, jobCommand, type Profile, promptPatterns, speaksProtocol } from "../../config.js";
import { expandHome, userHome } from "../../paths.js";
import { DEFAULT_QUIET_MS } from "../../pty/wire.js";
import type { JobRecord, Launch, SandboxLaunch } from "../../store/records.js";
import type { Core } from "../core.js";
import type { Actor } from "../feed.js";
import { excerpt } from "../text.js";
import { addWorktree, plannedWorktree, type WorktreeBase, worktreeBase } from "../worktrees/index.js";
import { hooksOf } from "./agent-hooks.js";
import { checkName } from "./names.js";
import { newJobRecord } from "./new-job.js";
import { missingProgram } from "./programs.js";
import { checkSandboxCwd, childCwd, findBwrap, sandboxOf, settleSandbox } from "./sandbox.js";
import { start } from "./start.js";

/**
 * A new job; `parent`: the session that spawned it (`spawn`), null for the user's. `as`: roost's own
 * agent (the concierge: its role, and its name, which no session may take) and the profile it runs
 * when roost.json has none for it.
 */
export async function dispatch(
  core: Core,
  args: OpArgs<"dispatch">,
  actor: Actor,
  parent: string | null = null,
  as: { role?: Row["role"]; profile?: Profile } = {},
): Promise<{ job: Row; duplicate?: boolean }> {
  if (args.requestId) {
    const id = core.store.jobForDispatchRequest(args.requestId);
    const existing = id ? core.registry.find(id) : undefined;
    if (existing) return { job: core.registry.row(existing), duplicate: true };
  }
  const checked = checkLaunch(core, args, as.profile);
  core.budgets.mayDispatch(args.profile); // refused while the day's or the profile's budget is spent
  const { profile, name } = checked;
  // The concierge is never put to sleep: it is woken by digests, not by the user.
  const idleMs = as.role === "concierge" ? null : idleStopOf(core, args, profile);
  const { sandbox, cwd } = sandboxed(core, args, profile, parent, checked.cwd);
  const from = wantsWorktree(args, profile) ? await worktreeBase(cwd, args.branch) : null;
  const task = args.task?.trim() ? args.task : undefined;
  const firstReply =
    task !== undefined && (profile.task ?? "type") === "type" ? { text: task, mode: null } : null;
  const { job: rec, lastSeq } = core.store.createJob((num) => {
    const id = `j${num}`;
    // A worktree's place is known from the job's id: the job runs there, where the user's cwd is in it.
    const worktree = from ? plannedWorktree(core.paths, id, from) : null;
    const launch = launchOf(
      profile,
      worktree ? path.resolve(worktree.path, from!.prefix) : cwd,
      task,
      sandbox,
      idleMs,
    );
    return newRecord(core, id, args, { launch, name, task, parent, worktree, role: as.role ?? null });
  }, firstReply);
  rec.lastSeq = lastSeq; // committed: the first task's seq is the job's
  if (from) await makeWorktree(core, rec, from);
  // Its tree, and a worktree's git directories, fixed now, before the job has written anything.
  if (sandbox) await settleSandboxOf(core, rec, sandbox);
  const durable = core.store.synced(); // on disk before the answer; synced while the job starts
  const job = core.registry.add(rec, firstReply ? 1 : 0);
  core.feed.record(
    rec.id,
    "dispatch",
    `${args.profile}${task !== undefined ? `: ${excerpt(task)}` : ""}`,
    actor,
  );
  await start(core, job);
  await durable;
  return { job: core.registry.row(job) };
}

/**
 * The job's sandbox, if it has one (sandbox.ts), and where it runs: a sandboxed session's child in
 * its parent's tree. Refused before a row is made on a machine without bubblewrap.
 */
function sandboxed(
  core: Core,
  args: OpArgs<"dispatch">,
  profile: Profile,
  parentId: string | null,
  cwd: string,
): { sandbox: SandboxLaunch | undefined; cwd: string } {
  const parent = parentId === null ? null : (core.registry.find(parentId)?.rec ?? null);
  const sandbox = sandboxOf(core.paths, args.sandbox, profile, parent, userHome(core.env));
  if (!sandbox) return { sandbox, cwd };
  findBwrap(core.bwrap, core.env);
  if (parent?.launch.sandbox) return { sandbox, cwd: childCwd(parent, args.cwd, userHome(core.env)) };
  checkSandboxCwd(core.paths, cwd);
  return { sandbox, cwd };
}

/** The job's sandbox fixed (sandbox.ts); should that be refused, the job is taken back out of the store. */
async function settleSandboxOf(core: Core, rec: JobRecord, sandbox: SandboxLaunch): Promise<void> {
  try {
    await settleSandbox(core.paths, rec, sandbox);
    core.store.updateJob(rec);
  } catch (err) {
    core.store.deleteJob(rec.id);
    throw err;
  }
}

/** Whether the job gets a worktree: as asked (a branch named asks for one), else as its profile says. */
function wantsWorktree(args: OpArgs<"dispatch">, profile: Profile): boolean {
  if (args.worktree === false && args.branch !== undefined)
    throw new RoostError(
      "bad_request",
      "branch names a worktree's branch: leave it out, or drop worktree: false",
    );
  return args.worktree ?? (args.branch !== undefined || profile.worktree === true);
}

/**
 * The job's worktree, made before it starts (its row not yet shown). Should git refuse, the job
 * is taken back out of the store and the dispatch answered with git's reason.
 */
async function makeWorktree(core: Core, rec: JobRecord, from: WorktreeBase): Promise<void> {
  try {
    // A session's spawn names a repository the user may never have seen: its config is not the user's.
    const usersRepository = rec.parent === null;
    rec.worktree = await addWorktree(core.paths, rec.worktree!, {
      named: from.branch !== null,
      usersRepository,
    });
    core.store.updateJob(rec);
  } catch (err) {
    core.store.deleteJob(rec.id);
    if (err instanceof RoostError) throw err;
    throw new RoostError("bad_request", `could not make ${rec.id}'s worktree: ${(err as Error).message}`);
  }
}

/**
 * What `dispatch` checks before a row is made (a schedule's launch too, when it is added): the
 * profile, its program, the working directory, the job's name.
 */
export function checkLaunch(
  core: Core,
  args: Pick<OpArgs<"dispatch">, "profile" | "cwd" | "name">,
  given?: Profile,
): { profile: Profile; cwd: string; name: string | null } {
  const profile = given ?? profileNamed(core, args.profile);
  const home = userHome(core.env);
  const cwd = checkCwd(args.cwd ?? profile.cwd ?? home, home);
  // Refused before a row is made: a job whose program is not there could only fail.
  const missing = missingProgram(profile, cwd, core.env);
  if (missing) {
    const runnable = [...core.config.profiles]
      .filter(([, p]) => missingProgram(p, p.cwd ?? cwd, core.env) === null)
      .map(([n]) => n)
      .sort();
    throw new RoostError(
      "bad_request",
      `profile ${JSON.stringify(args.profile)} cannot run: ${missing}; install it, or dispatch one of: ${runnable.join(", ")}`,
    );
  }
  return { profile, cwd, name: args.name === undefined ? null : checkName(args.name) };
}

function profileNamed(core: Core, name: string): Profile {
  const profile = core.config.profiles.get(name);
  if (profile) return profile;
  const known = [...core.config.profiles.keys()].sort().join(", ");
  throw new RoostError("bad_request", `no profile ${JSON.stringify(name)}; the profiles are: ${known}`);
}

/** How the job is started: the profile's command (with the task as its last word, for `argv`). */
function launchOf(
  profile: Profile,
  cwd: string,
  task: string | undefined,
  sandbox: SandboxLaunch | undefined,
  idleMs: number | null,
): Launch {
  const taskMode = profile.task ?? "type";
  const hooks = hooksOf(profile, speaksProtocol(profile));
  return {
    command: task !== undefined && taskMode === "argv" ? [...jobCommand(profile), task] : jobCommand(profile),
    cwd,
    // The tools to hold for the user's approval reach the agent in its environment (pi's extension).
    env: { ...profile.env, ...(profile.approve?.length ? { ROOST_APPROVE: profile.approve.join(",") } : {}) },
    task: taskMode,
    ...(task !== undefined && taskMode === "type" ? { taskText: task } : {}),
    protocol: speaksProtocol(profile),
    messages: profile.messages === true,
    blockedPatterns: blockedPatterns(profile),
    ...(profile.promptPattern !== undefined ? { promptPatterns: promptPatterns(profile) } : {}),
    quietMs: profile.quietMs ?? DEFAULT_QUIET_MS,
    ...(sandbox ? { sandbox } : {}),
    ...(idleMs !== null ? { idleStopMs: idleMs } : {}),
    ...(hooks ? { hooks: { agent: hooks, taskArg: task !== undefined && taskMode === "argv" } } : {}),
  };
}

/**
 * The job's idleStop in ms (null: off), fixed now into its launch: its dispatch's, else its
 * profile's, else roost.json's (docs/budgets.md). The config's were checked at start.
 */
function idleStopOf(core: Core, args: OpArgs<"dispatch">, profile: Profile): number | null {
  try {
    const asked = idleStopMs(args.idleStop);
    if (asked !== undefined) return asked;
  } catch (err) {
    throw new RoostError("bad_request", `idleStop: ${(err as Error).message}`);
  }
  // A profile's `false` is its own: off, whatever roost.json's top-level says.
  return idleStopMs(profile.idleStop ?? core.config.idleStop) ?? null;
}

/** A new job's record, as it is before its first start. */
function newRecord(
  core: Core,
  id: string,
  args: OpArgs<"dispatch">,
  {
    launch,
    name,
    task,
    parent,
    worktree,
    role,
  }: {
    launch: Launch;
    name: string | null;
    task: string | undefined;
    parent: string | null;
    worktree: JobRecord["worktree"];
    role: Row["role"];
  },
): JobRecord {
  return newJobRecord({
    id,
    profile: args.profile,
    launch,
    role,
    // The concierge's name is its own: reserved (names.ts), so never a session's.
    userName: role === "concierge" ? "concierge" : name,
    defaultName: task !== undefined ? excerpt(task, 60) : args.profile,
    parent,
    order: core.registry.topOrder(),
    dispatchRequestId: args.requestId ?? null,
    worktree,
    budget: args.budget
      ? { own: args.budget, spent: { cost: 0, tokens: 0, minutes: 0 }, seen: null, exempt: null }
      : null,
  });
}

function checkCwd(dir: string, home: string): string {
  const abs = expandHome(dir, home);
  if (!path.isAbsolute(abs))
    throw new RoostError("bad_request", `cwd ${JSON.stringify(dir)} must be an absolute path`);
  let isDir = false;
  try {
    isDir = fs.statSync(abs).isDirectory();
  } catch {}
  if (!isDir) throw new RoostError("bad_request", `cwd ${JSON.stringify(dir)} is not a directory`);
  return abs;
}
