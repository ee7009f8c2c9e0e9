/**
 * git, as a child process: roost asks git for everything about a repository (worktrees, branches,
 * diffs, merges) and computes none of it itself. Nothing here knows a job. What git may run of its
 * own (a config's commands, hooks) is turned off here for every git roost runs but the user's own
 * merge (docs/worktrees.md, "What roost trusts").
 */
import { spawn } from "node:child_process";

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout stopped at `maxBytes`: the rest was not read. */
  cut: boolean;
}

export interface GitOptions {
  /** Read at most this many bytes of stdout; git is then ended (`cut`). */
  maxBytes?: number;
  /** More environment (a temporary index: GIT_INDEX_FILE; a git directory of roost's: GIT_DIR). */
  env?: Record<string, string>;
  /**
   * The user's own `git merge` in their own checkout: their config and hooks apply, as when they
   * merge by hand. Every other git runs nothing its config or a hook names.
   */
  usersOwn?: boolean;
}

/**
 * What git would otherwise run or ask on a config's say (git 2.39): the fsmonitor hook, hooks, an
 * external diff, a pager or editor, a signature check in `log`, another repository's git in a
 * submodule, gc in the background. Given as `-c`, so they win over every config file; git passes
 * them on to any git it starts. Textconv has no config of its own to turn off: the diffs say
 * `--no-textconv`. Filters are turned off where a job's files are read (git-view.ts).
 */
const NOTHING_RUNS = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.editor=false",
  "sequence.editor=false",
  "diff.external=",
  "diff.submodule=short",
  "log.showSignature=false",
  "submodule.recurse=false",
  "status.submoduleSummary=false",
  "gc.auto=0",
  "maintenance.auto=false",
];

/**
 * And where a job's files are read: no transport at all (a lazy fetch of a partial clone names a
 * remote, whose `ext::` URL is a command), so no ssh command, credential helper or proxy either.
 */
export const NO_NETWORK = [
  "protocol.allow=never",
  ...["ext", "file", "git", "ssh", "http", "https", "fd"].map((p) => `protocol.${p}.allow=never`),
  "core.sshCommand=false",
  "core.gitProxy=false",
  "credential.helper=",
  "core.askPass=false",
];

const configArgs = (pairs: readonly string[]) => pairs.flatMap((p) => ["-c", p]);

/** `KEY=VALUE` settings as git's environment (GIT_CONFIG_COUNT): for every git run with it. */
export function configEnv(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach((p, i) => {
    const eq = p.indexOf("=");
    env[`GIT_CONFIG_KEY_${i}`] = p.slice(0, eq);
    env[`GIT_CONFIG_VALUE_${i}`] = p.slice(eq + 1);
  });
  return env;
}

/**
 * `git -C dir ARGS...`: never prompts, never pages, never colours, in English (its messages are
 * shown to the user and a few are matched here), and without taking the index's lock for reads
 * (GIT_OPTIONAL_LOCKS=0: an agent's own git in the worktree is never held up by roost's).
 */
export function git(dir: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const safety = options.usersOwn ? [] : configArgs(NOTHING_RUNS);
    const argv = ["--no-pager", "-C", dir, "-c", "core.quotepath=false", "-c", "color.ui=false", ...safety];
    const child = spawn("git", [...argv, ...args], {
      env: {
        ...ownEnv(),
        GIT_TERMINAL_PROMPT: "0",
        GIT_OPTIONAL_LOCKS: "0",
        GIT_PAGER: "cat",
        LC_ALL: "C",
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let cut = false;
    child.stdout.on("data", (chunk: Buffer) => {
      if (cut) return;
      const max = options.maxBytes ?? Number.POSITIVE_INFINITY;
      if (bytes + chunk.length > max) {
        out.push(chunk.subarray(0, max - bytes));
        bytes = max;
        cut = true;
        child.kill("SIGTERM");
        return;
      }
      out.push(chunk);
      bytes += chunk.length;
    });
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (e) =>
      reject(new Error(`could not run git (${e.message}): roost needs git on its PATH for worktrees`)),
    );
    child.on("close", (code) =>
      resolve({
        code: cut ? 0 : (code ?? 1),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8").trim(),
        cut,
      }),
    );
  });
}

/**
 * The daemon's environment without git's own repository variables: a daemon started from a git
 * hook or alias has GIT_DIR set, which would point every command here at that repository. Nor
 * the variables that name a command or more config, which would go past the settings above.
 */
const REPOSITORY_VARIABLES: ReadonlySet<string> = new Set([
  "GIT_CONFIG",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_EXTERNAL_DIFF",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_ASKPASS",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_PROXY_COMMAND",
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
]);

function ownEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!REPOSITORY_VARIABLES.has(k)) env[k] = v;
  return env;
}

/** `git ARGS...` that must succeed: its stdout, else an error with git's own words. */
export async function gitOk(dir: string, args: string[], options?: GitOptions): Promise<string> {
  const r = await git(dir, args, options);
  if (r.code !== 0) throw new GitError(args, r);
  return r.stdout;
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly result: GitResult,
  ) {
    super(`git ${args[0]} failed: ${result.stderr || result.stdout.trim() || `exit ${result.code}`}`);
  }
}

/**
 * The files `git status --porcelain -z` names (untracked ones too): what a checkout has not
 * committed. A submodule's own files are not looked into (that would run its git, its config).
 */
export async function uncommitted(dir: string, options?: GitOptions): Promise<string[]> {
  const args = ["status", "--porcelain", "-z", "--untracked-files=normal", "--ignore-submodules=dirty"];
  const out = await gitOk(dir, args, options);
  const files: string[] = [];
  const entries = out.split("\0");
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.length < 4) continue;
    files.push(e.slice(3));
    if (e[0] === "R" || e[0] === "C") i++; // a rename's source follows it
  }
  return files;
}
