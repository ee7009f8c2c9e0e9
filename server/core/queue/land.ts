/**
 * One queue entry landed (docs/worktrees.md, "The merge queue"): its branch merged onto the target
 * as it is now, in a scratch worktree (`$ROOST_HOME/queue/<n>`, detached, removed after); the check
 * run there; then the target fast-forwarded to that commit, never forced. A target that moved
 * meanwhile is merged onto again, a few times at most. Conflicts are found by `git merge-tree`
 * first and the merge commit made by `commit-tree`, so that nothing is checked out for a conflict.
 */
import fs from "node:fs";
import path from "node:path";
import type { QueueRecord } from "../../store/queue.js";
import { messageOf } from "../text.js";
import {
  checkoutOf,
  commitOf,
  git,
  gitOk,
  isAncestor,
  isInside,
  listed,
  uncommitted,
} from "../worktrees/index.js";
import { type CheckEnd, endLeftover, type RunningCheck, runCheck } from "./check-run.js";

/** What a landing needs of the queue: its entry's changes written and pushed, and its ends. */
export interface Lander {
  home: string;
  worktreesDir: string;
  update(rec: QueueRecord, changes: Partial<QueueRecord>): void;
  /** The check's output, pushed at most once a second. */
  output(rec: QueueRecord, tail: string): void;
  synced(): Promise<void>;
  failed(rec: QueueRecord, detail: string, why: Failure): Promise<void>;
  /** The target moved to `commit` (or had it already): pushed, cleaned, marked landed. */
  landed(rec: QueueRecord, commit: string, onto: string): Promise<void>;
  /** The check under way, so that a shutdown ends it. */
  checking: RunningCheck | null;
  closed: boolean;
}

export type Failure = { conflicts: string[] } | { check: CheckEnd } | null;

/** How many times an entry is merged again onto a target that moved while it was checked. */
const TRIES = 3;
/** How often a landing that waits on a checkout's uncommitted changes looks again. */
const WAIT_MS = Number(process.env.ROOST_QUEUE_WAIT_MS) || 3000;

export const scratchOf = (home: string, n: number) => path.join(home, "queue", String(n));
export const logOf = (home: string, n: number) => path.join(home, "queue", `${n}.log`);

export async function land(q: Lander, rec: QueueRecord): Promise<void> {
  for (let tried = 1; ; tried++) {
    const how = await tryOnce(q, rec);
    if (how !== "moved" || q.closed) return;
    if (tried >= TRIES)
      return q.failed(rec, `${rec.into} moved ${TRIES} times while this was checked: queue it again`, null);
    q.update(rec, {
      state: "merging",
      detail: `${rec.into} moved while this was checked: merging again onto ${rec.into} as it is now`,
    });
  }
}

async function tryOnce(q: Lander, rec: QueueRecord): Promise<"done" | "moved"> {
  const { repo, into, branch } = rec;
  const intoRef = `refs/heads/${into}`;
  const target = await commitOf(repo, intoRef);
  if (!target) return done(q.failed(rec, `there is no branch ${into} in ${repo} any more`, null));
  const tip = await commitOf(repo, `refs/heads/${branch}`);
  if (!tip) return done(q.failed(rec, `${rec.id}'s branch ${branch} is gone from ${repo}`, null));
  if (await isAncestor(repo, tip, target)) return done(q.landed(rec, target, target)); // nothing of it left to land
  let merged = tip; // a fast-forward: what is checked is the branch itself
  if (!(await isAncestor(repo, target, tip))) {
    const tree = await mergeTree(repo, target, tip);
    if (typeof tree !== "string")
      return done(
        q.failed(rec, `${branch} conflicts with ${into} in ${listed(tree, 20)}`, { conflicts: tree }),
      );
    const message = `Merge ${branch} into ${into} (roost queue #${rec.n}, job ${rec.id})`;
    merged = (await gitOk(repo, ["commit-tree", tree, "-p", target, "-p", tip, "-m", message])).trim();
  }
  if (rec.check) {
    q.update(rec, { state: "checking", output: "" });
    const end = await checkIn(q, rec, merged);
    if (end.killed || q.closed) return "done"; // the daemon is stopping: the entry starts again after
    if (end.code !== 0) {
      const how = end.timedOut
        ? `timed out after ${Math.round(rec.timeoutMs / 1000)} s`
        : `exited ${end.code ?? "on a signal"}`;
      return done(
        q.failed(rec, `the check \`${rec.check}\` ${how} on ${branch} merged onto ${into}`, { check: end }),
      );
    }
  }
  // Recorded, on disk, before the ref moves: a restart then finds what it was to become.
  q.update(rec, { state: "landing", merged, onto: target });
  await q.synced();
  return moveTarget(q, rec, merged, target);
}

const done = async (p: Promise<void>): Promise<"done"> => {
  await p;
  return "done";
};

/** The merged tree, or the conflicting files. */
async function mergeTree(repo: string, a: string, b: string): Promise<string | string[]> {
  const r = await git(repo, ["merge-tree", "--write-tree", "--name-only", "--no-messages", a, b]);
  const [tree = "", ...conflicted] = r.stdout.split("\n").filter(Boolean);
  if (r.code === 1) return [...new Set(conflicted)];
  if (r.code !== 0) throw new Error(`git merge-tree failed: ${r.stderr || `exit ${r.code}`}`);
  return tree;
}

/** The check, in a scratch worktree of the merged commit, removed after whatever happens. */
async function checkIn(q: Lander, rec: QueueRecord, merged: string): Promise<CheckEnd> {
  const dir = scratchOf(q.home, rec.n);
  await removeScratch(rec, dir);
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  try {
    await gitOk(rec.repo, ["worktree", "add", "--detach", "--quiet", dir, merged]);
    const check = runCheck({
      command: rec.check!,
      cwd: dir,
      timeoutMs: rec.timeoutMs,
      logFile: logOf(q.home, rec.n),
      onOutput: (tail) => q.output(rec, tail),
    });
    q.checking = check;
    q.update(rec, { checkPid: check.pid });
    const end = await check.done;
    q.checking = null;
    q.update(rec, { checkPid: null, output: end.output });
    return end;
  } finally {
    await removeScratch(rec, dir).catch((err) =>
      console.error(`roost: queue #${rec.n}: could not remove ${dir}: ${messageOf(err)}`),
    );
  }
}

/** A scratch worktree gone, and git told (a check a dead daemon left running there ended first). */
export async function removeScratch(rec: QueueRecord, dir: string): Promise<void> {
  endLeftover(rec.checkPid, dir);
  fs.rmSync(dir, { recursive: true, force: true });
  if (fs.existsSync(rec.repo)) await git(rec.repo, ["worktree", "prune"]);
}

/**
 * The target fast-forwarded to `merged`: `git merge --ff-only` where it is checked out (the user's
 * own git), else `update-ref NEW OLD`. A checkout with uncommitted changes is waited on.
 */
async function moveTarget(
  q: Lander,
  rec: QueueRecord,
  merged: string,
  target: string,
): Promise<"done" | "moved"> {
  const { repo, into } = rec;
  const intoRef = `refs/heads/${into}`;
  for (;;) {
    if (q.closed) return "done";
    const now = await commitOf(repo, intoRef);
    if (now && (await isAncestor(repo, merged, now))) return done(q.landed(rec, now, target)); // landed by hand meanwhile
    if (now !== target) return "moved";
    const where = await checkoutOf(repo, intoRef);
    if (where && isInside(q.worktreesDir, where))
      return done(
        q.failed(rec, `${into} is checked out in ${where}, a job's worktree: roost runs no git there`, null),
      );
    if (where) {
      const dirty = await uncommitted(where);
      if (dirty.length > 0) {
        const detail = `waiting: ${where}, where ${into} is checked out, has uncommitted changes (${listed(dirty)}); commit or stash them and it lands`;
        if (rec.detail !== detail) q.update(rec, { detail });
        await new Promise((r) => setTimeout(r, WAIT_MS));
        continue;
      }
      if (rec.detail?.startsWith("waiting: ")) q.update(rec, { detail: null });
      // The user's checkout and their own git, as `merge` does there: their config and hooks apply.
      const r = await git(where, ["merge", "--ff-only", "--quiet", merged], { usersOwn: true });
      if (r.code !== 0) {
        if ((await commitOf(repo, intoRef)) !== target) return "moved";
        return done(
          q.failed(rec, `git merge --ff-only in ${where} refused: ${r.stderr || r.stdout.trim()}`, null),
        );
      }
    } else {
      const message = `roost queue #${rec.n}: ${rec.branch} landed`;
      const r = await git(repo, ["update-ref", "-m", message, intoRef, merged, target]);
      if (r.code !== 0) {
        if ((await commitOf(repo, intoRef)) !== target) return "moved";
        return done(q.failed(rec, `git update-ref refused: ${r.stderr}`, null));
      }
    }
    return done(q.landed(rec, merged, target));
  }
}
