/**
 * `changes` (docs/worktrees.md): what a job changed, as git says it. A job with a worktree: its
 * branch's commits and its uncommitted work against the commit it started from; one without:
 * its working directory's repository against HEAD. Untracked files are in it (git's own
 * `.gitignore` rules apply), without touching the agent's index or the repository: git reads them
 * into a copy of the index, in a git directory of roost's (git-view.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { type ChangedFile, type Changes, LIMITS, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { LiveJob } from "../jobs/index.js";
import { configEnv, git, gitOk, NO_NETWORK } from "./git.js";
import { type GitTree, type GitView, withView } from "./git-view.js";

/** What a diff is taken of: the tree, and against what (null: its HEAD, or the empty tree before one). */
interface Scope {
  tree: GitTree;
  against: string | null;
  branch: string | null;
}

export async function changes(core: Core, id: string, statOnly: boolean): Promise<Changes> {
  const job = core.registry.get(id);
  const scope = await scopeOf(core, job);
  const result = await withView(scope.tree, async (view) => {
    const against = scope.against ?? view.head ?? (await emptyTree(view));
    const taken = await diffOf(view, against, statOnly);
    return { id, dir: view.dir, against, branch: scope.branch ?? view.branch, ...taken };
  });
  if (job.rec.worktree) core.worktrees.keepStat(job, result);
  return result;
}

async function scopeOf(core: Core, job: LiveJob): Promise<Scope> {
  const id = job.rec.id;
  const wt = job.rec.worktree;
  if (wt) {
    if (!fs.existsSync(wt.path))
      throw new RoostError("not_found", `${id}'s worktree ${wt.path} is gone: there is nothing to diff`);
    return { tree: await core.worktrees.tree(job), against: wt.baseCommit, branch: wt.branch };
  }
  return { tree: await checkoutOf(id, job.rec.launch.cwd), against: null, branch: null };
}

/**
 * The checkout a job without a worktree runs in: its top and git directory, as git finds them from
 * there (reading its config, running nothing). A top that is not where its `.git` is (a
 * `core.worktree` pointing elsewhere) is refused: the job could have pointed it at any directory.
 */
async function checkoutOf(id: string, cwd: string): Promise<GitTree> {
  const found = await git(
    cwd,
    ["rev-parse", "--path-format=absolute", "--show-toplevel", "--absolute-git-dir"],
    {
      env: configEnv(NO_NETWORK),
    },
  );
  const [workTree = "", gitDir = ""] = found.stdout.split("\n");
  if (found.code !== 0 || !workTree)
    throw new RoostError(
      "bad_request",
      `${id} runs in ${cwd}, which is not in a git repository: there is no diff to show (dispatch with worktree to have one)`,
    );
  if (!fs.existsSync(path.join(workTree, ".git")))
    throw new RoostError(
      "conflict",
      `${id} runs in ${cwd}, whose repository's config sets its work tree to ${workTree} (core.worktree), elsewhere than its .git: roost does not read a tree its job chose`,
    );
  return { workTree, gitDir };
}

/** git's empty tree, in the repository's object format (not written). */
const emptyTree = async (view: GitView) =>
  (await gitOk(view.dir, ["hash-object", "-t", "tree", "--stdin"], { env: view.env })).trim();

/** What the diffs leave out, that would run something: external diffs, textconv, a submodule's git. */
const PLAIN = ["--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty", "--no-color"];

/** The diff of the tree (untracked files too) against `against`, bounded, through roost's view. */
export async function diffOf(
  view: GitView,
  against: string,
  statOnly: boolean,
): Promise<Omit<Changes, "id" | "dir" | "against" | "branch">> {
  const { dir, env } = view;
  // New files enter roost's index as "to be added" (no content hashed or kept), so that the diff of
  // the tree against the commit has them; git reads every file's content as it diffs.
  await gitOk(dir, ["add", "--all", "--intent-to-add", "--", "."], { env });
  // The counts, the diff and the commits together: three gits, each reading on its own.
  const [numstat, patch, commits] = await Promise.all([
    gitOk(dir, ["diff", ...PLAIN, "--numstat", "-z", "-M", against, "--"], { env }),
    statOnly ? null : git(dir, ["diff", ...PLAIN, "-M", against, "--"], { env, maxBytes: LIMITS.diffBytes }),
    branchCommits(view, against),
  ]);
  const all = parseNumstat(numstat);
  const files = all.slice(0, LIMITS.diffFiles);
  const notes: string[] = [];
  if (all.length > files.length)
    notes.push(`${all.length} files changed; the first ${files.length} are listed`);
  let diff = "";
  if (patch) {
    diff = patch.cut ? cutAtFile(patch.stdout) : patch.stdout;
    if (patch.cut) {
      const shown = diff.split("\ndiff --git ").length - (diff.startsWith("diff --git ") ? 0 : 1);
      notes.push(
        `the diff is cut at ${LIMITS.diffBytes / 1024 / 1024} MiB (${shown} of ${all.length} files shown): \`git diff ${against.slice(0, 12)}\` in ${dir} shows it all`,
      );
    }
  }
  return {
    commits,
    files,
    added: all.reduce((n, f) => n + (f.added ?? 0), 0),
    removed: all.reduce((n, f) => n + (f.removed ?? 0), 0),
    diff,
    truncated: notes.length > 0,
    note: notes.length > 0 ? `${notes.join("; ")}.` : null,
  };
}

/** Cut where a file's diff starts, so that no file is shown in part; a first file alone is cut as it is. */
function cutAtFile(text: string): string {
  const at = text.lastIndexOf("\ndiff --git ");
  return at > 0 ? text.slice(0, at + 1) : text;
}

/** `git diff --numstat -z`: `A\tR\tPATH\0`, or for a rename `A\tR\t\0FROM\0TO\0`; `-\t-` for binary. */
export function parseNumstat(out: string): ChangedFile[] {
  const parts = out.split("\0");
  const files: ChangedFile[] = [];
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry === "") continue;
    const [a = "", r = "", p = ""] = entry.split("\t");
    const binary = a === "-" && r === "-";
    const counts = { added: binary ? null : Number(a), removed: binary ? null : Number(r), binary };
    if (p !== "") files.push({ path: p, ...counts });
    else {
      const from = parts[++i] ?? "";
      const to = parts[++i] ?? "";
      files.push({ path: to, from, ...counts });
    }
  }
  return files;
}

/** The commits on the branch since `against`, newest first (at most 100). */
async function branchCommits(view: GitView, against: string): Promise<Changes["commits"]> {
  const r = await git(view.dir, ["log", "--format=%H%x09%s", "-n", "100", `${against}..HEAD`], {
    env: view.env,
  });
  if (r.code !== 0) return []; // no HEAD yet
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf("\t");
      return { sha: line.slice(0, tab), subject: line.slice(tab + 1) };
    });
}
