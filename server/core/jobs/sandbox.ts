/**
 * roost's sandbox for a job (docs/security.md): bubblewrap, so that a job's program cannot act as
 * the hub. It sees the file system read-only but for its tree (its worktree or cwd), its own
 * directory, a private /tmp and what its profile lists as writable; roost's home is not there (a
 * tmpfs over it), nor the owner's socket; roost is reached through a socket made for that job
 * alone (bridge/job-sockets.ts), which takes that job's agent ops and nothing else.
 */
import fs from "node:fs";
import path from "node:path";
import { RoostError } from "../../../sdk/ts/protocol/index.js";
import type { Profile } from "../../config.js";
import { expandHome, jobDir, type Paths } from "../../paths.js";
import type { JobRecord, SandboxLaunch } from "../../store/records.js";
import { PACKAGE_ROOT } from "../../version.js";
import { git } from "../worktrees/index.js";
import { findProgram } from "./programs.js";

/** How to get bubblewrap, for the refusal of a machine without it. */
const INSTALL_HINT =
  "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)";

/**
 * The directory of a sandboxed job's socket: in its job directory, which the job may write, but
 * mounted read-only over it inside, so that the job can neither remove the socket nor plant a link
 * where the daemon makes it again. Its directory, not the socket, is mounted: a socket made again
 * (after a daemon restart) is a new file, which a mount of the old one would not show.
 */
export const sandboxSocketDir = (paths: Paths, id: string) => path.join(jobDir(paths, id), "sandbox");
export const sandboxSocket = (paths: Paths, id: string) =>
  path.join(sandboxSocketDir(paths, id), "roost.sock");

/** What wraps a sandboxed job's program: bubblewrap, and its init in the job's pid namespace. */
export const BWRAP_WRAPPERS = 2;

/** bubblewrap's program: `ROOST_BWRAP` names another (or one that is not there, to test its absence). */
export function bwrapProgram(env: NodeJS.ProcessEnv): string {
  return env.ROOST_BWRAP || "bwrap";
}

/** The bubblewrap to run, or `bad_request` saying how to install it. */
export function findBwrap(program: string, env: NodeJS.ProcessEnv): string {
  if (process.platform !== "linux")
    throw new RoostError("bad_request", `the sandbox is Linux's (bubblewrap); this is ${process.platform}`);
  const file = findProgram(program, env.PATH ?? "", "/");
  if (!file)
    throw new RoostError(
      "bad_request",
      `the sandbox needs bubblewrap, and ${program} is not installed here: ${INSTALL_HINT}, or dispatch without sandbox`,
    );
  return file;
}

/**
 * Whether the job is sandboxed, and how: asked (`sandbox`), else as its profile says. A sandboxed
 * session's children are sandboxed as it is, whatever they ask or their profile says: a child is
 * no way out.
 */
export function sandboxOf(
  paths: Paths,
  asked: boolean | undefined,
  profile: Profile,
  parent: JobRecord | null,
  /** The user's home, for a `~` in the profile's `writable`. */
  home: string,
): SandboxLaunch | undefined {
  const inherited = parent?.launch.sandbox;
  if (inherited) {
    if (asked === false)
      throw new RoostError(
        "bad_request",
        `${parent.id} is sandboxed, and so are its children: leave sandbox out`,
      );
    return { network: inherited.network, writable: [...inherited.writable], tree: "" };
  }
  if (!(asked ?? profile.sandbox === true)) return undefined;
  const writable = (profile.writable ?? []).map((p) => path.resolve(expandHome(p, home)));
  for (const p of writable)
    if (inHome(paths, p))
      throw new RoostError(
        "bad_request",
        `a sandboxed job may not write in roost's home (${p} is in ${paths.home})`,
      );
  return { network: profile.network ?? true, writable, tree: "" };
}

/**
 * What the job may write, fixed once its row is made (a worktree, made): each where it really is,
 * so that what a start binds is what was checked here. A missing writable path is made, as a
 * directory (an agent's config and caches; a file must be there); a worktree adds the git
 * directories its commits go to.
 */
export async function settleSandbox(paths: Paths, rec: JobRecord, sandbox: SandboxLaunch): Promise<void> {
  for (const p of sandbox.writable) if (!fs.existsSync(p)) fs.mkdirSync(p, { recursive: true, mode: 0o700 });
  sandbox.writable = sandbox.writable.map(real);
  for (const p of sandbox.writable)
    if (inHome(paths, p))
      throw new RoostError("bad_request", `a sandboxed job may not write in roost's home (${p} is in it)`);
  sandbox.tree = real(treeOf(rec));
  if (rec.worktree) sandbox.writable.push(...(await worktreeGitDirs(rec.worktree.repo, rec.worktree.path)));
}

/**
 * Where a sandboxed child of a sandboxed session may run: in its parent's tree (default: where the
 * parent runs), so that it writes nothing its parent could not.
 */
export function childCwd(parent: JobRecord, asked: string | undefined, home: string): string {
  // Where each really is: a link the parent made in its tree may point anywhere.
  const tree = real(treeOf(parent));
  const cwd = real(asked === undefined ? parent.launch.cwd : path.resolve(expandHome(asked, home)));
  if (!within(cwd, tree))
    throw new RoostError(
      "bad_request",
      `${parent.id} is sandboxed: its children run in its tree (${tree}), not in ${cwd}`,
    );
  return cwd;
}

/** A sandboxed job's cwd may not be in roost's home (but for its own worktree, which is bound alone). */
export function checkSandboxCwd(paths: Paths, cwd: string): void {
  if (inHome(paths, cwd))
    throw new RoostError(
      "bad_request",
      `a sandboxed job cannot run in roost's home (${cwd}): it is hidden from the job; give another cwd`,
    );
}

/**
 * A worktree job writes its commits to its repository: the objects, the refs and their logs, and
 * the worktree's own git directory, but never the repository's config or hooks (which the user's
 * git runs). Asked of the user's repository and of the worktree roost has just made, never of
 * anything the job wrote.
 */
async function worktreeGitDirs(repo: string, worktree: string): Promise<string[]> {
  const common = await git(repo, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  if (common.code !== 0) return [];
  const dir = common.stdout.trim();
  const own = await git(worktree, ["rev-parse", "--path-format=absolute", "--git-dir"]);
  const dirs = ["objects", "refs", "logs"].map((d) => path.join(dir, d));
  if (own.code === 0) dirs.push(own.stdout.trim());
  return dirs.filter((d) => fs.existsSync(d));
}

/** The job's tree: its worktree, or where it runs. */
const treeOf = (rec: JobRecord): string => rec.worktree?.path ?? rec.launch.cwd;

/** Whether `p` is `dir` or inside it. */
function within(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Whether `p` is in roost's home, by its name or where it really is (a link into the home is in it). */
const inHome = (paths: Paths, p: string): boolean =>
  within(p, paths.home) || within(real(p), real(paths.home));

/** The real path, when it exists (a home reached through a link is hidden where it really is too). */
function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * What the job runs that lies in /tmp, which the sandbox replaces with a private, empty one: roost
 * itself (a checkout there: its example agents, pi's extension, the ACP bridge run from it), and
 * each path in the command (`python3 /tmp/agent/run.py`: its directory, unless that is /tmp
 * itself, then the file alone). Read-only, as the rest of the file system is.
 */
function programsInTmp(command: readonly string[]): string[] {
  const found = new Set<string>();
  for (const arg of [PACKAGE_ROOT, ...command.filter((a) => path.isAbsolute(a))]) {
    const at = real(arg);
    if (!within(at, "/tmp") || at === "/tmp" || !fs.existsSync(at)) continue;
    const dir = fs.statSync(at).isDirectory() ? at : path.dirname(at);
    found.add(dir === "/tmp" ? at : dir);
  }
  // The outermost of each: a path inside another is in its bind already.
  return [...found].filter((p) => ![...found].some((q) => q !== p && within(p, q))).sort();
}

/**
 * The job's command, inside bubblewrap. The order of the mounts is the model: everything read-only;
 * a private /tmp (with what the job runs from there, read-only); what the job may write; then roost's home (and the owner's socket's directory,
 * when it is elsewhere) hidden under empty tmpfs, even where they lie inside what it may write;
 * then, inside those, the job's own directory, its socket's (read-only) and its worktree.
 *
 * Not `--new-session`: the job keeps its terminal as its controlling one (job control, `tput`), and
 * that terminal is its own (the pty host's), read by nothing of the user's after it ends, so a
 * TIOCSTI from inside types only into the job itself.
 */
export function bwrapArgs(paths: Paths, rec: JobRecord, sandbox: SandboxLaunch): string[] {
  // Each mount where its directory really is: bubblewrap mounts nothing over a symbolic link, and
  // a home reached through one is there under its real name too.
  fs.mkdirSync(sandboxSocketDir(paths, rec.id), { recursive: true, mode: 0o700 });
  const tree = sandbox.tree;
  const dir = real(jobDir(paths, rec.id));
  const socketDir = real(sandboxSocketDir(paths, rec.id));
  // What the job may write is bound only where it was at dispatch: the job could since have put a
  // link in its place (a subdirectory of a parent's tree, a path inside a writable directory).
  for (const p of [tree, ...sandbox.writable])
    if (real(p) !== p)
      throw new RoostError(
        "conflict",
        `${p} is not where it was at dispatch (now ${real(p)}): the sandbox binds nothing it has not checked; dispatch a new job`,
      );
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const p of programsInTmp(rec.launch.command)) args.push("--ro-bind", p, p);
  for (const p of sandbox.writable) args.push("--bind", p, p);
  args.push("--bind", tree, tree);
  const hidden = [real(paths.home)];
  if (!within(paths.socket, paths.home)) hidden.push(real(path.dirname(paths.socket)));
  for (const h of hidden) args.push("--tmpfs", h);
  args.push("--bind", dir, dir, "--ro-bind", socketDir, socketDir);
  // Its worktree (in roost's home) bound again over the tmpfs.
  if (hidden.some((h) => within(tree, h))) args.push("--bind", tree, tree);
  args.push("--unshare-pid", "--die-with-parent");
  if (!sandbox.network) args.push("--unshare-net");
  args.push("--chdir", rec.launch.cwd, "--");
  return args;
}
