/**
 * Overlaps between jobs' worktrees of one repository (docs/worktrees.md, "Overlaps"): which files
 * two jobs both changed (committed or not, each against the commit it started from), and whether
 * their work would conflict if both landed, found by `git merge-tree` with no checkout touched.
 *
 * Each job's tree is taken as a snapshot commit (its uncommitted files included) through a look of
 * roost's (git-view.ts) whose objects are kept per repository in roost's home, so that two jobs'
 * snapshots can be merged. Snapshots are taken when a job comes to rest, and every few seconds
 * while one of the repository's jobs works (what changed since is all git hashes again), one
 * repository's at a time and never on a report's path; a pair is merged again only when one of
 * its snapshots changed.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Overlap } from "../../../sdk/ts/protocol/index.js";
import { type Actor, ROOST } from "../feed.js";
import type { LiveJob, Registry } from "../jobs/index.js";
import { git, gitOk } from "./git.js";
import { type GitTree, withView } from "./git-view.js";

/** How often a repository whose jobs work is looked at again, at most. */
export const OVERLAP_POLL_MS = 5_000;
/** The files an overlap lists, at most (each of its two lists). */
const MOST_FILES = 50;
/** Merges run at once (on a small machine, more only queue for its cores). */
const MERGES_AT_ONCE = 3;
/** Snapshots taken into one repository's objects before they are cleared and taken afresh. */
const SNAPSHOTS_PER_STORE = 500;

/** A fixed author and date: the same tree on the same commit is the same snapshot, written once. */
const SNAPSHOT_ENV = {
  GIT_AUTHOR_NAME: "roost",
  GIT_AUTHOR_EMAIL: "roost@localhost",
  GIT_AUTHOR_DATE: "@0 +0000",
  GIT_COMMITTER_NAME: "roost",
  GIT_COMMITTER_EMAIL: "roost@localhost",
  GIT_COMMITTER_DATE: "@0 +0000",
};

/**
 * A job's tree as last taken: its snapshot commit, the commit that is on (its HEAD), and the files
 * it changed since its start, each with its content's object id now (deleted: zeros).
 */
interface Snapshot {
  commit: string;
  parent: string;
  files: ReadonlyMap<string, string>;
}

/** What overlaps needs of the rest of roost. */
export interface OverlapParts {
  registry: Pick<Registry, "all" | "find" | "noted" | "nameOf" | "row">;
  feed: { record(id: string, kind: "overlap", text: string, actor: Actor): unknown };
  /** The job's worktree as roost made it (refused when its `.git` was replaced). */
  tree(job: LiveJob): Promise<GitTree>;
  /** Where the repositories' snapshot objects are kept (roost's home: the jobs' files are in them). */
  dir: string;
}

interface Repository {
  timer: NodeJS.Timeout | null;
  running: boolean;
  /** Asked for while it ran: again after it, at once (`now`: a job came to rest) or after a poll's wait. */
  again: boolean;
  againNow: boolean;
  /** The jobs whose tree is to be taken again at the next run. */
  stale: Set<string>;
  snapshotsTaken: number;
  /** The repository's git directory (its objects are read by the snapshots' merges). */
  commonDir: string | null;
}

export class Overlaps {
  private readonly repos = new Map<string, Repository>();
  private readonly snapshots = new Map<string, Snapshot>();
  /**
   * Each pair's files that would conflict, by what decides it: the two commits the snapshots are on
   * and the content of the files both changed. A job that writes files of its own only (as most
   * do, most of the time) is merged with no one again.
   */
  private readonly merged = new Map<string, string[]>();
  /** The pairs said to conflict in the feed (`idA idB`), so each new conflict is said once. */
  private readonly said = new Set<string>();

  constructor(private readonly parts: OverlapParts) {
    // Kept only while the daemon runs: snapshots are taken afresh at start.
    fs.rmSync(parts.dir, { recursive: true, force: true });
  }

  /** The job's tree may have changed (it came to rest, or it works): its repository is looked at soon. */
  touched(job: LiveJob, moving: boolean): void {
    const repo = job.rec.worktree?.repo;
    if (!repo) return;
    const r = this.repoOf(repo);
    r.stale.add(job.rec.id);
    this.schedule(repo, r, moving ? OVERLAP_POLL_MS : 0);
  }

  /** The job is gone: its overlaps go from the others' rows. */
  forget(id: string, repo: string | undefined): void {
    if (!this.snapshots.delete(id) || !repo) return;
    for (const key of this.said) if (key.split(" ").includes(id)) this.said.delete(key);
    const r = this.repoOf(repo);
    this.schedule(repo, r, 0);
  }

  private repoOf(repo: string): Repository {
    let r = this.repos.get(repo);
    if (!r) {
      r = {
        timer: null,
        running: false,
        again: false,
        againNow: false,
        stale: new Set(),
        snapshotsTaken: 0,
        commonDir: null,
      };
      this.repos.set(repo, r);
    }
    return r;
  }

  /** One run per repository at a time, at most one every OVERLAP_POLL_MS unless a job just came to rest. */
  private schedule(repo: string, r: Repository, delay: number): void {
    if (r.running) {
      r.again = true;
      if (delay === 0) r.againNow = true;
      return;
    }
    if (r.timer) {
      if (delay > 0) return;
      clearTimeout(r.timer);
    }
    r.timer = setTimeout(() => {
      r.timer = null;
      void this.run(repo, r);
    }, delay);
    r.timer.unref();
  }

  private async run(repo: string, r: Repository): Promise<void> {
    r.running = true;
    r.again = false;
    r.againNow = false;
    try {
      await this.recompute(repo, r);
    } catch (err) {
      console.error(`roost: overlaps in ${repo}: ${(err as Error).message}`);
    } finally {
      r.running = false;
    }
    const jobs = this.jobsOf(repo);
    if (jobs.length === 0) {
      this.repos.delete(repo);
      fs.rmSync(this.storeOf(repo), { recursive: true, force: true });
      return;
    }
    // Jobs at work are looked at again in a while: their files change as they go.
    const moving = jobs.filter((j) => isMoving(this.parts.registry.row(j).view));
    for (const j of moving) r.stale.add(j.rec.id);
    if (r.againNow) this.schedule(repo, r, 0);
    else if (r.again || r.stale.size > 0) this.schedule(repo, r, OVERLAP_POLL_MS);
  }

  /** The repository's jobs whose worktree is there to look at. */
  private jobsOf(repo: string): LiveJob[] {
    return this.parts.registry
      .all()
      .filter(
        (j) => j.rec.worktree?.repo === repo && !j.rec.worktree.refused && fs.existsSync(j.rec.worktree.path),
      );
  }

  private storeOf(repo: string): string {
    return path.join(this.parts.dir, createHash("sha256").update(repo).digest("hex").slice(0, 16), "objects");
  }

  private async recompute(repo: string, r: Repository): Promise<void> {
    const jobs = this.jobsOf(repo);
    const objects = this.storeOf(repo);
    if (r.snapshotsTaken >= SNAPSHOTS_PER_STORE) {
      // Bounded: each changed file's every version is kept; cleared, every tree is taken afresh.
      fs.rmSync(objects, { recursive: true, force: true });
      r.snapshotsTaken = 0;
      for (const j of jobs) r.stale.add(j.rec.id);
      this.merged.clear();
    }
    const stale = jobs.filter((j) => r.stale.has(j.rec.id) || !this.snapshots.has(j.rec.id));
    r.stale.clear();
    // One at a time: a repository's looks share its objects, and the daemon's children stay few.
    for (const job of stale) {
      const taken = await this.snapshot(job, objects).catch(() => null);
      r.snapshotsTaken++;
      if (taken) {
        r.commonDir ??= taken.commonDir;
        this.snapshots.set(job.rec.id, taken.snapshot);
      } else this.snapshots.delete(job.rec.id);
    }
    if (r.commonDir === null) return;
    const env = {
      GIT_OBJECT_DIRECTORY: objects,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(r.commonDir, "objects"),
    };
    const pairs: { a: LiveJob; b: LiveJob; sa: Snapshot; sb: Snapshot; both: string[] }[] = [];
    for (const a of jobs) {
      const sa = this.snapshots.get(a.rec.id);
      if (!sa) continue;
      for (const b of jobs) {
        const sb = this.snapshots.get(b.rec.id);
        if (!sb || b.rec.id <= a.rec.id) continue;
        const both = [...sa.files.keys()].filter((f) => sb.files.has(f)).sort();
        if (both.length > 0) pairs.push({ a, b, sa, sb, both });
      }
    }
    // A few merges at once: each is a git of its own, mostly its start's time.
    const conflicts = await inPool(MERGES_AT_ONCE, pairs, (p) =>
      this.conflictsOf(repo, env, p.sa, p.sb, p.both),
    );
    const found = new Map<string, Overlap[]>();
    pairs.forEach(({ a, b, both }, n) => {
      const files = both.slice(0, MOST_FILES);
      const shown = conflicts[n]!.slice(0, MOST_FILES);
      push(found, a.rec.id, { id: b.rec.id, files, conflicts: shown });
      push(found, b.rec.id, { id: a.rec.id, files, conflicts: shown });
      this.sayConflict(a, b, conflicts[n]!);
    });
    // The repository's jobs, those not looked at too (a worktree refused or gone: nothing to say of it).
    const all = this.parts.registry.all().filter((j) => j.rec.worktree?.repo === repo);
    for (const job of all) {
      const now = (found.get(job.rec.id) ?? []).sort((x, y) => x.id.localeCompare(y.id));
      if (JSON.stringify(now) === JSON.stringify(job.overlaps)) continue;
      job.overlaps = now;
      this.parts.registry.noted(job, false);
    }
  }

  /** The job's tree as a commit (its uncommitted files in it) and what it changed since its start. */
  private async snapshot(
    job: LiveJob,
    objects: string,
  ): Promise<{ snapshot: Snapshot; commonDir: string } | null> {
    const wt = job.rec.worktree!;
    const tree = await this.parts.tree(job);
    return withView(
      tree,
      async (view) => {
        const env = { ...view.env, ...SNAPSHOT_ENV };
        // Its files as they are, new ones too (.gitignore applies), hashed into roost's objects.
        await gitOk(view.dir, ["add", "--all", "--", "."], { env });
        const treeId = (await gitOk(view.dir, ["write-tree"], { env })).trim();
        const parent = view.head ?? wt.baseCommit;
        const [commit, names] = await Promise.all([
          gitOk(view.dir, ["commit-tree", treeId, "-p", parent, "-m", `roost: ${job.rec.id}'s tree`], {
            env,
          }),
          gitOk(
            view.dir,
            ["diff", "--cached", "--raw", "--no-abbrev", "-z", "--no-renames", wt.baseCommit, "--"],
            {
              env,
            },
          ),
        ]);
        const snapshot = { commit: commit.trim(), parent, files: rawFiles(names) };
        return { snapshot, commonDir: view.commonDir };
      },
      objects,
    );
  }

  /** The files two snapshots would conflict in, merged by git (`merge-tree`, writing only to roost's objects). */
  private async conflictsOf(
    repo: string,
    env: Record<string, string>,
    a: Snapshot,
    b: Snapshot,
    both: readonly string[],
  ): Promise<string[]> {
    const key = [a.parent, b.parent, ...both.map((f) => `${f}\0${a.files.get(f)}\0${b.files.get(f)}`)].join(
      "\n",
    );
    const known = this.merged.get(key);
    if (known) return known;
    const r = await git(
      repo,
      ["merge-tree", "--write-tree", "--name-only", "--no-messages", a.commit, b.commit],
      {
        env,
      },
    );
    if (r.code !== 0 && r.code !== 1) throw new Error(`git merge-tree: ${r.stderr.trim()}`);
    const [, ...names] = r.stdout.split("\n").filter(Boolean);
    const conflicts = r.code === 1 ? [...new Set(names)].sort() : [];
    if (this.merged.size > 10_000) this.merged.clear();
    this.merged.set(key, conflicts);
    return conflicts;
  }

  /** A pair newly conflicting is a feed entry (which wakes the concierge): said once while it lasts. */
  private sayConflict(a: LiveJob, b: LiveJob, conflicts: string[]): void {
    const key = `${a.rec.id} ${b.rec.id}`;
    if (conflicts.length === 0) {
      this.said.delete(key);
      return;
    }
    if (this.said.has(key)) return;
    this.said.add(key);
    const names = (j: LiveJob) => `${this.parts.registry.nameOf(j)} (${j.rec.id})`;
    const files =
      conflicts.slice(0, 5).join(", ") + (conflicts.length > 5 ? `, and ${conflicts.length - 5} more` : "");
    this.parts.feed.record(
      a.rec.id,
      "overlap",
      `${names(a)} and ${names(b)} would conflict if both landed: both changed ${files}`,
      ROOST,
    );
  }
}

/** `git diff --raw -z`: `:MODE MODE OLD NEW STATUS\0PATH\0` each; the path, and its object id now. */
function rawFiles(out: string): Map<string, string> {
  const parts = out.split("\0");
  const files = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const fields = parts[i]!.split(" ");
    if (parts[i + 1]) files.set(parts[i + 1]!, fields[3] ?? "");
  }
  return files;
}

/** A job working or starting writes as it goes; the rest have stopped for now. */
export const isMoving = (view: string) => view === "working" || view === "starting";

function push(map: Map<string, Overlap[]>, id: string, overlap: Overlap): void {
  const list = map.get(id);
  if (list) list.push(overlap);
  else map.set(id, [overlap]);
}

/** `fn` over `items`, at most `size` at a time; the results in the items' order. */
async function inPool<T, R>(size: number, items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const n = next++;
      results[n] = await fn(items[n]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return results;
}
