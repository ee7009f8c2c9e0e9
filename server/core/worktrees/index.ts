/**
 * The worktrees' room (docs/worktrees.md): a job's git worktree made, removed and swept, its diff,
 * its landing, the row's `+added -removed`; all asked of git. What the other rooms use of it.
 */
export { git } from "./git.js";
export type { WorktreeStats } from "./worktree-stat.js";
export {
  addWorktree,
  checkRemovable,
  plannedWorktree,
  removeWorktree,
  type WorktreeBase,
  worktreeBase,
} from "./worktrees.js";
