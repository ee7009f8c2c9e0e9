/**
 * git, as a child process: roost asks git for everything about a repository (worktrees, branches,
 * diffs, merges) and computes none of it itself. Nothing here knows a job.
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
  /** More environment (a temporary index: GIT_INDEX_FILE). */
  env?: Record<string, string>;
}

/**
 * `git -C dir ARGS...`: never prompts, never pages, never colours, in English (its messages are
 * shown to the user and a few are matched here), and without taking the index's lock for reads
 * (GIT_OPTIONAL_LOCKS=0: an agent's own git in the worktree is never held up by roost's).
 */
export function git(dir: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["-C", dir, "-c", "core.quotepath=false", "-c", "color.ui=false", ...args], {
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
 * hook or alias has GIT_DIR set, which would point every command here at that repository.
 */
const REPOSITORY_VARIABLES: ReadonlySet<string> = new Set([
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

/** The files `git status --porcelain -z` names (untracked ones too): what a worktree has not committed. */
export async function uncommitted(dir: string): Promise<string[]> {
  const out = await gitOk(dir, ["status", "--porcelain", "-z", "--untracked-files=normal"]);
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
