/**
 * `merge` (docs/worktrees.md): a job's branch landed in its base branch, on this machine only
 * (nothing is pushed). A fast-forward or a clean merge goes through; one with conflicts is refused
 * with the files, having changed nothing: git's `merge-tree` finds them without touching a
 * checkout. Where the base branch is checked out (the base checkout, usually) the merge is done
 * there by `git merge`, so that its files follow; elsewhere the branch's ref is moved.
 */
import fs from "node:fs";
import path from "node:path";
import { type OpArgs, type OpResult, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { Actor } from "../feed.js";
import { GitError, git, gitOk } from "./git.js";
import { listed, uncommittedIn } from "./worktrees.js";

export async function merge(core: Core, args: OpArgs<"merge">, actor: Actor): Promise<OpResult<"merge">> {
  const job = core.registry.get(args.id);
  const id = job.rec.id;
  const wt = job.rec.worktree;
  if (!wt)
    throw new RoostError(
      "bad_request",
      `${id} has no worktree: merge lands a worktree's branch (dispatch with worktree: true)`,
    );
  const into = args.into ?? wt.base;
  if (!into)
    throw new RoostError(
      "bad_request",
      `${wt.repo} was on a detached HEAD when ${id} started: say which branch to merge into (into)`,
    );
  try {
    const intoRef = `refs/heads/${into}`;
    const intoCommit = await commitOf(wt.repo, intoRef);
    if (!intoCommit) throw new RoostError("not_found", `there is no branch ${into} in ${wt.repo}`);
    if (fs.existsSync(wt.path)) {
      const dirty = await uncommittedIn(await core.worktrees.tree(job));
      if (dirty.length > 0)
        throw new RoostError(
          "conflict",
          `${id}'s worktree has changes not committed (${listed(dirty)}): a merge takes commits only; have the agent commit them (or commit them in ${wt.path}), then merge`,
        );
    }
    const branchCommit = await commitOf(wt.repo, `refs/heads/${wt.branch}`);
    if (!branchCommit)
      throw new RoostError("not_found", `${id}'s branch ${wt.branch} is gone from ${wt.repo}`);
    if (await isAncestor(wt.repo, branchCommit, intoCommit))
      return { into, commit: intoCommit, fastForward: true, files: [] }; // nothing of it left to land
    const fastForward = await isAncestor(wt.repo, intoCommit, branchCommit);
    const tree = fastForward
      ? null
      : await cleanMergeTree(wt.repo, into, wt.branch, intoCommit, branchCommit);
    const message = `Merge ${wt.branch} (roost job ${id}: ${core.registry.nameOf(job)})`;
    const where = await checkoutOf(wt.repo, intoRef);
    if (where && isInside(core.paths.worktreesDir, where))
      throw new RoostError(
        "conflict",
        `${into} is checked out in ${where}, a job's worktree: roost runs no git there (it is the job's to write); check ${into} out elsewhere, or merge by hand`,
      );
    const commit = where
      ? await mergeInCheckout(where, into, wt.branch, fastForward, message)
      : await moveRef(
          wt.repo,
          intoRef,
          intoCommit,
          fastForward ? branchCommit : null,
          tree,
          branchCommit,
          message,
        );
    // What landed: `into` before against after (not against the branch, which lacks what `into` did since).
    const files = (await gitOk(wt.repo, ["diff", "--name-only", "-z", intoCommit, commit]))
      .split("\0")
      .filter(Boolean);
    core.feed.record(
      id,
      "merge",
      `merged ${wt.branch} into ${into} (${fastForward ? "fast-forward" : `merge commit ${commit.slice(0, 12)}`}; ${files.length} file${files.length === 1 ? "" : "s"})`,
      actor,
    );
    return { into, commit, fastForward, files };
  } catch (err) {
    if (err instanceof GitError) throw new RoostError("bad_request", `${id}: ${err.message}`);
    throw err;
  }
}

export async function commitOf(repo: string, ref: string): Promise<string | null> {
  const r = await git(repo, ["rev-parse", "--verify", "-q", `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : null;
}

export async function isAncestor(repo: string, a: string, b: string): Promise<boolean> {
  return (await git(repo, ["merge-base", "--is-ancestor", a, b])).code === 0;
}

/** The merged tree, if the two merge without a conflict; else `conflict` naming the files. */
async function cleanMergeTree(
  repo: string,
  into: string,
  branch: string,
  intoCommit: string,
  branchCommit: string,
): Promise<string> {
  const r = await git(repo, [
    "merge-tree",
    "--write-tree",
    "--name-only",
    "--no-messages",
    intoCommit,
    branchCommit,
  ]);
  const [tree = "", ...conflicted] = r.stdout.split("\n").filter(Boolean);
  if (r.code === 1)
    throw new RoostError(
      "conflict",
      `${branch} does not merge cleanly into ${into}: conflicts in ${listed([...new Set(conflicted)], 20)}; nothing was changed`,
    );
  if (r.code !== 0) throw new GitError(["merge-tree"], r);
  return tree;
}

export const isInside = (dir: string, p: string) => {
  const rel = path.relative(dir, p);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
};

/** The checkout (the base checkout, or another worktree) that has `ref` checked out, if one has. */
export async function checkoutOf(repo: string, ref: string): Promise<string | null> {
  const out = await gitOk(repo, ["worktree", "list", "--porcelain"]);
  for (const block of out.split("\n\n")) {
    const lines = block.split("\n");
    if (lines.includes(`branch ${ref}`))
      return lines.find((l) => l.startsWith("worktree "))?.slice(9) ?? null;
  }
  return null;
}

/**
 * `git merge` where `into` is checked out. Its own refusal (uncommitted changes there that the
 * merge would overwrite) is a conflict; a merge that stops half done is undone.
 */
async function mergeInCheckout(
  where: string,
  into: string,
  branch: string,
  fastForward: boolean,
  message: string,
): Promise<string> {
  const args = fastForward ? ["merge", "--ff-only", branch] : ["merge", "--no-edit", "-m", message, branch];
  // The user's checkout and the user's merge: their config and hooks, as when they merge by hand.
  const r = await git(where, args, { usersOwn: true });
  if (r.code !== 0) {
    if ((await git(where, ["rev-parse", "-q", "--verify", "MERGE_HEAD"])).code === 0)
      await git(where, ["merge", "--abort"], { usersOwn: true });
    throw new RoostError(
      "conflict",
      `${branch} was not merged into ${into} in ${where}: ${r.stderr || r.stdout.trim()}; nothing was changed`,
    );
  }
  return (await gitOk(where, ["rev-parse", "HEAD"])).trim();
}

/** No checkout has `into`: its ref is moved (to the branch, or to a merge commit of the clean tree). */
async function moveRef(
  repo: string,
  ref: string,
  old: string,
  fastForwardTo: string | null,
  tree: string | null,
  branchCommit: string,
  message: string,
): Promise<string> {
  const commit =
    fastForwardTo ??
    (await gitOk(repo, ["commit-tree", tree!, "-p", old, "-p", branchCommit, "-m", message])).trim();
  await gitOk(repo, ["update-ref", "-m", message, ref, commit, old]);
  return commit;
}
