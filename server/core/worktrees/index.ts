/**
 * The worktrees' room (docs/worktrees.md): a job's git worktree made, removed and swept, its diff,
 * its landing, the row's `+added -removed`; all asked of git. What the other rooms use of it.
 */
// The merge queue's (core/queue/): git as merge.ts runs it, and its look at a checkout's branch.
export { GitError, git, gitOk, uncommitted } from "./git.js";
export { checkoutOf, commitOf, isAncestor, isInside } from "./merge.js";
export type { WorktreeStats } from "./worktree-stat.js";
export {
  addWorktree,
  checkRemovable,
  listed,
  plannedWorktree,
  removeWorktree,
  type WorktreeBase,
  worktreeBase,
} from "./worktrees.js";
