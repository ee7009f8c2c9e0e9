/**
 * The row's `worktree.stat` (files, `+added -removed`): taken again when the job comes to rest
 * (done, your turn, blocked, failed, ended: its agent has stopped writing for now), and whenever
 * `changes` is asked. Not on every report: a diff costs git a walk of the worktree.
 */
import { type Changes, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { LiveJob } from "../jobs/index.js";
import { diffOf } from "./changes.js";
import { type GitTree, withView } from "./git-view.js";
import { isMoving, type OverlapParts, Overlaps } from "./overlaps.js";
import { worktreeTree } from "./worktrees.js";

export class WorktreeStats {
  /** By job: whether it was at rest at its last change (a stat is taken as it comes to rest). */
  private readonly resting = new Map<string, boolean>();
  /** By job: the stat being taken, and whether another was asked for meanwhile. */
  private readonly taking = new Map<string, { again: boolean }>();

  /** Which jobs of a repository changed the same files (overlaps.ts); null: not looked for. */
  readonly overlaps: Overlaps | null;

  /** `overlapsDir`: where overlaps keeps its snapshots (in roost's home); without it, none are looked for. */
  constructor(
    private readonly registry: OverlapParts["registry"],
    feed?: OverlapParts["feed"],
    overlapsDir?: string,
  ) {
    this.overlaps =
      feed && overlapsDir
        ? new Overlaps({ registry, feed, dir: overlapsDir, tree: (job) => this.tree(job) })
        : null;
  }

  /** The job's row changed: a job with a worktree that just came to rest has its stat taken. */
  changed(job: LiveJob): void {
    if (!job.rec.worktree) return;
    const rest = !isMoving(this.registry.row(job).view);
    const was = this.resting.get(job.rec.id) ?? false;
    this.resting.set(job.rec.id, rest);
    if (rest && !was) this.take(job);
    // Cheap on every change: at most a timer per repository (overlaps.ts).
    if (!rest || !was) this.overlaps?.touched(job, !rest);
  }

  /** Takes its stat now (once at a time: one asked for meanwhile runs after). */
  take(job: LiveJob): void {
    const id = job.rec.id;
    const under = this.taking.get(id);
    if (under) {
      under.again = true;
      return;
    }
    const state = { again: false };
    this.taking.set(id, state);
    void (async () => {
      try {
        do {
          state.again = false;
          const wt = job.rec.worktree;
          if (!wt || this.registry.find(id) !== job) return;
          const taken = await this.tree(job)
            .then((tree) => withView(tree, (view) => diffOf(view, wt.baseCommit, true)))
            .catch(() => null);
          if (taken) this.keepStat(job, taken);
        } while (state.again);
      } finally {
        this.taking.delete(id);
      }
    })();
  }

  /** A diff taken (`changes`, or here) becomes the row's stat, if the job and its worktree are still there. */
  keepStat(job: LiveJob, taken: Pick<Changes, "files" | "added" | "removed">): void {
    const wt = job.rec.worktree;
    if (!wt || this.registry.find(job.rec.id) !== job) return;
    const stat = { files: taken.files.length, added: taken.added, removed: taken.removed };
    const same =
      wt.stat &&
      wt.stat.files === stat.files &&
      wt.stat.added === stat.added &&
      wt.stat.removed === stat.removed;
    if (same) return;
    job.rec.worktree = { ...wt, stat: { ...stat, at: new Date().toISOString() } };
    // Its place in the list and `updatedAt` are the agent's doing; this is roost's reading of it.
    this.registry.noted(job, true);
  }

  /**
   * The job's worktree as roost made it (worktreeTree), for every git roost runs on it; refused,
   * the row says why (`worktree.refused`), and says no more once it is put back.
   */
  async tree(job: LiveJob): Promise<GitTree> {
    const wt = job.rec.worktree!;
    try {
      const tree = await worktreeTree(job.rec.id, wt);
      this.note(job, undefined);
      return tree;
    } catch (err) {
      if (err instanceof RoostError && err.code === "conflict") this.note(job, err.message);
      throw err;
    }
  }

  private note(job: LiveJob, refused: string | undefined): void {
    const wt = job.rec.worktree;
    if (!wt || wt.refused === refused || this.registry.find(job.rec.id) !== job) return;
    const { refused: _was, ...rest } = wt;
    job.rec.worktree = refused === undefined ? rest : { ...rest, refused };
    this.registry.noted(job, true);
  }

  forget(job: LiveJob): void {
    const id = job.rec.id;
    this.resting.delete(id);
    this.taking.delete(id);
    this.overlaps?.forget(id, job.rec.worktree?.repo);
  }
}
