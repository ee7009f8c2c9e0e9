/**
 * A job's git worktree (docs/worktrees.md): made at dispatch from the HEAD of the repository its
 * working directory is in, on a new branch; removed with the job (its branch kept unless asked);
 * swept at start for what a crash left. Where they live: `$ROOST_HOME/worktrees/<job-id>`.
 */
import fs from "node:fs";
import path from "node:path";
import { RoostError, type Worktree } from "../../../sdk/ts/protocol/index.js";
import type { Paths } from "../../paths.js";
import { type GitError, git, gitOk, uncommitted } from "./git.js";
import { type GitTree, withView } from "./git-view.js";

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
  const top = await git(dir, ["rev-parse", "--show-toplevel", "--show-prefix", "--absolute-git-dir"]);
  if (top.code !== 0)
    throw new RoostError(
      "bad_request",
      `${dir} is not in a git repository, so roost cannot make a worktree for it: dispatch it without worktree, or run it in a repository`,
    );
  const [repo = dir, prefix = "", gitDir = ""] = top.stdout.split("\n");
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
    baseDirty: (await uncommittedIn({ gitDir, workTree: repo })).length > 0,
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
export async function addWorktree(
  paths: Paths,
  wt: Worktree,
  { named, usersRepository }: { named: boolean; usersRepository: boolean },
): Promise<Worktree> {
  fs.mkdirSync(paths.worktreesDir, { recursive: true, mode: 0o700 });
  let branch = wt.branch;
  if (named) await checkNewBranch(wt.repo, branch);
  else for (let n = 2; await branchExists(wt.repo, branch); n++) branch = `${wt.branch}-${n}`;
  const checkout = usersRepository ? [] : ["--no-checkout"];
  await gitOk(wt.repo, ["worktree", "add", "--quiet", ...checkout, "-b", branch, wt.path, wt.baseCommit]);
  // Its git directory, asked of the tree git just made (no job has run in it yet): the one roost
  // names from now on.
  const gitDir = (await gitOk(wt.path, ["rev-parse", "--absolute-git-dir"])).trim();
  if (!usersRepository) await checkOutUntrusted({ gitDir, workTree: wt.path });
  return { ...wt, branch, gitDir };
}

/**
 * The files of a worktree whose repository a session chose (a `spawn`'s: a repository it may have
 * made itself, with a smudge filter in its config that would run as the user, outside any sandbox),
 * checked out through a git directory of roost's (git-view.ts): no filter of the repository's runs.
 * The index written there, its stat information fresh, becomes the worktree's own.
 */
async function checkOutUntrusted(tree: GitTree): Promise<void> {
  await withView(tree, async (view) => {
    await gitOk(view.dir, ["checkout-index", "--all", "--force", "--index"], { env: view.env });
    fs.copyFileSync(view.env.GIT_INDEX_FILE!, path.join(tree.gitDir, "index"));
  });
}

/**
 * The worktree's tree and git directory, as roost made them: the git directory it recorded (or,
 * for a record from before, the one git names `worktrees/<its name>` in the repository), checked
 * to point both ways (`.git` in the tree is a file naming it; its `gitdir` names that `.git`).
 * Anything else is refused, saying why: git is never run with a `.git` the job wrote.
 */
export async function worktreeTree(id: string, wt: Worktree): Promise<GitTree> {
  if (!fs.existsSync(wt.path))
    throw new RoostError("not_found", `${id}'s worktree ${wt.path} is gone: there is nothing of it to read`);
  const gitDir = wt.gitDir ?? (await derivedGitDir(wt));
  const why = gitDir ? pointsBack(wt.path, gitDir) : `${wt.repo} is not a git repository any more`;
  if (why)
    throw new RoostError(
      "conflict",
      `${id}'s worktree ${wt.path} is not as roost made it (${why}), so roost runs no git there: put its .git back (a file saying "gitdir: ${gitDir ?? "?"}"), or copy out what you need and rm it with force`,
    );
  return { gitDir: gitDir!, workTree: wt.path };
}

async function derivedGitDir(wt: Worktree): Promise<string | null> {
  if (!fs.existsSync(wt.repo)) return null;
  const common = await git(wt.repo, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  return common.code === 0 ? path.join(common.stdout.trim(), "worktrees", path.basename(wt.path)) : null;
}

/** Why `workTree` and `gitDir` are not each other's, or null when they are. */
function pointsBack(workTree: string, gitDir: string): string | null {
  const named = gitDirNamed(workTree);
  if (!named) return "its .git is not a file naming a git directory";
  if (!sameFile(named, gitDir)) return `its .git names ${named}, not ${gitDir}`;
  let back: string;
  try {
    back = fs.readFileSync(path.join(gitDir, "gitdir"), "utf8").trim();
  } catch {
    return `${gitDir} is gone from the repository`;
  }
  if (!sameFile(path.resolve(gitDir, back), path.join(workTree, ".git")))
    return `${gitDir} belongs to ${back}`;
  return null;
}

/** The git directory a tree's `.git` file names (a file, not a link), if it is one. */
function gitDirNamed(dir: string): string | null {
  const dotGit = path.join(dir, ".git");
  try {
    if (!fs.lstatSync(dotGit).isFile()) return null;
    const m = /^gitdir: (.+?)\r?\n?$/.exec(fs.readFileSync(dotGit, "utf8"));
    return m ? path.resolve(dir, m[1]!) : null;
  } catch {
    return null;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

/** The files of the tree not committed, through roost's view of it (git-view.ts). */
export const uncommittedIn = (tree: GitTree) =>
  withView(tree, (view) => uncommitted(view.dir, { env: view.env }));

/**
 * Whether `rm` may remove the worktree: one with uncommitted changes (untracked files too) only
 * with `force`, and one not as roost made it (worktreeTree) only with `force`. Checked before the
 * job is stopped, so a refusal changes nothing; and again as it is removed.
 */
export async function checkRemovable(
  id: string,
  wt: Worktree,
  force: boolean,
  tree: () => Promise<GitTree>,
): Promise<void> {
  if (force || !fs.existsSync(wt.path)) return;
  const dirty = await uncommittedIn(await tree());
  if (dirty.length > 0)
    throw new RoostError(
      "conflict",
      `${id}'s worktree ${wt.path} has uncommitted changes (${listed(dirty)}): commit them, or rm with force to lose them`,
    );
}

/**
 * Removes the worktree, and its branch if asked. Its directory is removed by roost and git
 * forgets it (`git worktree prune` in the repository): `git worktree remove` would check the tree
 * with the git its `.git` names, which is the job's to write. With force, a worktree not as roost
 * made it is removed all the same (no git runs in it), and so is one whose repository is gone.
 */
export async function removeWorktree(
  id: string,
  wt: Worktree,
  { force, deleteBranch }: { force: boolean; deleteBranch: boolean },
  tree: () => Promise<GitTree>,
): Promise<void> {
  await checkRemovable(id, wt, force, tree);
  fs.rmSync(wt.path, { recursive: true, force: true });
  if (!fs.existsSync(wt.repo)) return;
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
    // No record says which git directory it had: the one its .git names, if that names it back.
    const gitDir = gitDirNamed(dir);
    if (!gitDir || pointsBack(dir, gitDir)) {
      said.push(`${dir}: not a git worktree roost can check; left as it is`);
      continue;
    }
    const tree = { gitDir, workTree: dir };
    const dirty = await uncommittedIn(tree).catch(() => ["?"]);
    if (dirty.length > 0) {
      said.push(`${dir}: no job has it, but it has uncommitted changes (${listed(dirty)}); left for you`);
      continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    const r = await git(gitDir, [`--git-dir=${gitDir}`, "worktree", "prune"]).catch(() => null);
    said.push(
      r?.code === 0
        ? `${dir}: no job has it; removed (its branch is kept)`
        : `${dir}: no job has it; removed its files, but git did not forget it: ${r?.stderr ?? "git did not run"}`,
    );
  }
  return said;
}

/** A few of the files, and how many more. */
export function listed(files: readonly string[], most = 5): string {
  const shown = files.slice(0, most).join(", ");
  return files.length > most ? `${shown} and ${files.length - most} more` : shown;
}
