/**
 * A job's git worktree (docs/worktrees.md): where it runs, on which branch, from which commit, and
 * what it has changed so far; and the shape `changes` answers with.
 */
import Type, { type Static } from "typebox";

/**
 * A branch name roost makes or is given (`roost/j12`, `fix/login`): git's own rules are checked by
 * the daemon (`git check-ref-format --branch`); this only bounds it.
 */
export const BranchName = Type.String({ minLength: 1, maxLength: 200, pattern: "^[^\\s~^:?*\\[\\\\]+$" });

/** What the job's branch changed against its base commit, as of `at` (git diff --numstat). */
export const DiffStat = Type.Object({
  files: Type.Integer(),
  added: Type.Integer(),
  removed: Type.Integer(),
  at: Type.String(),
});
export type DiffStat = Static<typeof DiffStat>;

/**
 * Another job of the same repository that changed some of the same files (docs/worktrees.md,
 * "Overlaps"): the files both changed (each against its own start, committed or not), and those
 * of them their work would conflict in if both landed (empty: it merges cleanly). At most 50 each.
 */
export const Overlap = Type.Object({
  id: Type.String(),
  files: Type.Array(Type.String()),
  conflicts: Type.Array(Type.String()),
});
export type Overlap = Static<typeof Overlap>;

/** The row's `worktree`: null for a job that runs where it was told. */
export const Worktree = Type.Object({
  /** The worktree's directory (roost's: `$ROOST_HOME/worktrees/<job-id>`). */
  path: Type.String(),
  /** The job's branch: `roost/<job-id>`, or the name given. */
  branch: Type.String(),
  /** The base checkout's top directory (the repository the job's `cwd` was in). */
  repo: Type.String(),
  /** The branch the base checkout had at dispatch (what `merge` lands in); null when detached. */
  base: Type.Union([Type.String(), Type.Null()]),
  /** The commit the worktree started from. */
  baseCommit: Type.String(),
  /** The base checkout had uncommitted changes at dispatch: they are not in the worktree. */
  baseDirty: Type.Boolean(),
  /** What it changed, refreshed when the job stops (done, your turn, ended) and by `changes`. */
  stat: Type.Union([DiffStat, Type.Null()]),
  /**
   * Its git directory in the repository (`.git/worktrees/<name>`), as git made it: the one roost
   * runs git with there. Absent in a record from before roost kept it (it is then found again).
   */
  gitDir: Type.Optional(Type.String()),
  /**
   * Why roost runs no git in it now (its `.git` no longer points to its git directory, or that no
   * longer points back: the job replaced it); absent while it does.
   */
  refused: Type.Optional(Type.String()),
});
export type Worktree = Static<typeof Worktree>;

/** One file of a diff: its counts (null for a binary file) and how it changed. */
export const ChangedFile = Type.Object({
  path: Type.String(),
  /** Where it was, for a rename or a copy. */
  from: Type.Optional(Type.String()),
  added: Type.Union([Type.Integer(), Type.Null()]),
  removed: Type.Union([Type.Integer(), Type.Null()]),
  binary: Type.Boolean(),
});
export type ChangedFile = Static<typeof ChangedFile>;

/** A commit on the job's branch since its base. */
export const BranchCommit = Type.Object({ sha: Type.String(), subject: Type.String() });

/** `changes`' answer: the files, the commits, and the unified diff (cut past LIMITS.diffBytes). */
export const Changes = Type.Object({
  id: Type.String(),
  /** The directory the diff was taken in: the worktree, or the job's working directory's repository. */
  dir: Type.String(),
  /** What it is against: the worktree's base commit, or HEAD for a job without a worktree. */
  against: Type.String(),
  branch: Type.Union([Type.String(), Type.Null()]),
  commits: Type.Array(BranchCommit),
  files: Type.Array(ChangedFile),
  added: Type.Integer(),
  removed: Type.Integer(),
  /** The unified diff (`git diff`), empty with `stat: true`. */
  diff: Type.String(),
  /** Whether the diff (or the list of files) was cut; `note` then says how much and how to see all. */
  truncated: Type.Boolean(),
  note: Type.Union([Type.String(), Type.Null()]),
});
export type Changes = Static<typeof Changes>;
