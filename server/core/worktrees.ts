/**
 * A job's git worktree (docs/worktrees.md): made at dispatch from the HEAD of the repository its
 * working directory is in, on a new branch; removed with the job (its branch kept unless asked);
 * swept at start for what a crash left. Where they live: `$ROOST_HOME/worktrees/<job-id>`.
 */
import fs from "node:fs";
import path from "node:path";
import { RoostError, type Worktree } from "../../sdk/ts/protocol/index.js";
import type { Paths } from "../paths.js";
import { type GitError, git, gitOk, uncommitted } from "./git.js";

/** Where a new worktree comes from: the repository, its HEAD, and where in it the job runs. */
export interface WorktreeBase {
  /** The base checkout's top directory. */
  repo: string;
  /** The job's directory inside the repository (`packages/app/`), "" at its top. */
  prefix: string;
  base: string | null;
  baseCommit: string;
  baseDirty: boolean;
  /** The branch the user named, if they did. */
  branch: string | null;
}

export const worktreePath = (paths: Paths, id: string) => path.join(paths.worktreesDir, id);

/**
 * The repository `dir` is in, as a worktree's base; refused before any row is made: a directory
 * outside git, a repository with no commit, a branch name git refuses or one that exists.
 */
export async function worktreeBase(dir: string, branch: string | undefined): Promise<WorktreeBase> {
  const top = await git(dir, ["rev-parse", "--show-toplevel", "--show-prefix"]);
  if (top.code !== 0)
    throw new RoostError(
      "bad_request",
      `${dir} is not in a git repository, so roost cannot make a worktree for it: dispatch it without worktree, or run it in a repository`,
    );
  const [repo = dir, prefix = ""] = top.stdout.split("\n");
  const head = await git(repo, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  if (head.code !== 0)
    throw new RoostError(
      "bad_request",
      `${repo} has no commit yet: a worktree starts from a commit (commit once, then dispatch)`,
    );
  const symbolic = await git(repo, ["symbolic-ref", "--short", "-q", "HEAD"]);
  if (branch !== undefined) await checkNewBranch(repo, branch);
  return {
    repo,
    prefix,
    base: symbolic.code === 0 ? symbolic.stdout.trim() : null,
    baseCommit: head.stdout.trim(),
    baseDirty: (await uncommitted(repo)).length > 0,
    branch: branch ?? null,
  };
}

/** A branch name git allows, not in use in `repo`. */
async function checkNewBranch(repo: string, branch: string): Promise<void> {
  if ((await git(repo, ["check-ref-format", "--branch", branch])).code !== 0)
    throw new RoostError("bad_request", `branch ${JSON.stringify(branch)} is not a name git allows`);
  if (await branchExists(repo, branch))
    throw new RoostError(
      "conflict",
      `branch ${JSON.stringify(branch)} exists already in ${repo}: name another, or leave branch out for roost/<job-id>`,
    );
}

export async function branchExists(repo: string, branch: string): Promise<boolean> {
  return (await git(repo, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`])).code === 0;
}

/** What the job's record keeps before its worktree is made: its place is known from its id. */
export function plannedWorktree(paths: Paths, id: string, from: WorktreeBase): Worktree {
  return {
    path: worktreePath(paths, id),
    branch: from.branch ?? `roost/${id}`,
    repo: from.repo,
    base: from.base,
    baseCommit: from.baseCommit,
    baseDirty: from.baseDirty,
    stat: null,
  };
}

/**
 * `git worktree add -b BRANCH PATH BASECOMMIT`. roost's own name, taken meanwhile (a branch left by
 * a job of an earlier home with the same id), gets a number: `roost/j3-2`. Returns the worktree as
 * made.
 */
export async function addWorktree(paths: Paths, wt: Worktree, named: boolean): Promise<Worktree> {
  fs.mkdirSync(paths.worktreesDir, { recursive: true, mode: 0o700 });
  let branch = wt.branch;
  if (named) await checkNewBranch(wt.repo, branch);
  else for (let n = 2; await branchExists(wt.repo, branch); n++) branch = `${wt.branch}-${n}`;
  await gitOk(wt.repo, ["worktree", "add", "--quiet", "-b", branch, wt.path, wt.baseCommit]);
  return { ...wt, branch };
}

/**
 * Whether `rm` may remove the worktree: one with uncommitted changes (untracked files too) only
 * with `force`. Checked before the job is stopped, so a refusal changes nothing.
 */
export async function checkRemovable(id: string, wt: Worktree, force: boolean): Promise<void> {
  if (force || !fs.existsSync(wt.path)) return;
  let dirty: string[];
  try {
    dirty = await uncommitted(wt.path);
  } catch {
    return; // not a worktree any more (its repository was removed): nothing of git's to lose
  }
  if (dirty.length > 0)
    throw new RoostError(
      "conflict",
      `${id}'s worktree ${wt.path} has uncommitted changes (${listed(dirty)}): commit them, or rm with force to lose them`,
    );
}

/** Removes the worktree (a directory already gone: git forgets it), and its branch if asked. */
export async function removeWorktree(
  id: string,
  wt: Worktree,
  { force, deleteBranch }: { force: boolean; deleteBranch: boolean },
): Promise<void> {
  const repoThere = fs.existsSync(wt.repo);
  if (fs.existsSync(wt.path)) {
    const r = await git(wt.repo, ["worktree", "remove", ...(force ? ["--force", "--force"] : []), wt.path]);
    if (r.code !== 0) {
      const known = (await git(wt.path, ["rev-parse", "--git-dir"])).code === 0;
      if (known) throw new RoostError("conflict", `${id}'s worktree ${wt.path} was not removed: ${r.stderr}`);
      // Not a worktree git knows (its repository moved or is gone, or it was half made): its files
      // may be the only copy of the work, so they go only with force.
      if (!force)
        throw new RoostError(
          "conflict",
          `${id}'s worktree ${wt.path} is no longer one git knows (is ${wt.repo} gone?): copy out what you need, then rm with force`,
        );
      fs.rmSync(wt.path, { recursive: true, force: true });
    }
  }
  if (!repoThere) return;
  await git(wt.repo, ["worktree", "prune"]);
  if (deleteBranch && (await branchExists(wt.repo, wt.branch)))
    await gitOk(wt.repo, ["branch", "-D", wt.branch]).catch((err: GitError) => {
      throw new RoostError("conflict", `the worktree is removed, but its branch is not: ${err.message}`);
    });
}

/**
 * At start: a directory in worktrees/ that no job has is what a crash left (a dispatch that did not
 * finish, an `rm` cut short). A clean one is removed (its branch kept); one with uncommitted changes
 * is left where it is, and the log says so. Then git forgets the worktrees whose directories are gone.
 */
export async function sweepWorktrees(paths: Paths, jobs: ReadonlySet<string>): Promise<string[]> {
  let names: string[];
  try {
    names = fs.readdirSync(paths.worktreesDir);
  } catch {
    return [];
  }
  const said: string[] = [];
  for (const name of names.filter((n) => !jobs.has(n))) {
    const dir = path.join(paths.worktreesDir, name);
    const common = await git(dir, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
    if (common.code !== 0) {
      said.push(`${dir}: not a git worktree; left as it is`);
      continue;
    }
    const repo = common.stdout.trim(); // its repository's git directory: git works from there too
    const dirty = await uncommitted(dir).catch(() => ["?"]);
    if (dirty.length > 0) {
      said.push(`${dir}: no job has it, but it has uncommitted changes (${listed(dirty)}); left for you`);
      continue;
    }
    const r = await git(repo, ["worktree", "remove", dir]);
    said.push(
      r.code === 0
        ? `${dir}: no job has it; removed (its branch is kept)`
        : `${dir}: no job has it; could not remove it: ${r.stderr}`,
    );
  }
  return said;
}

/** A few of the files, and how many more. */
export function listed(files: readonly string[], most = 5): string {
  const shown = files.slice(0, most).join(", ");
  return files.length > most ? `${shown} and ${files.length - most} more` : shown;
}
