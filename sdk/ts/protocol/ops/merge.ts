/** `merge` (protocol.md, "The hub's ops"): a job's branch landed in its base branch, locally. */
import Type from "typebox";
import { JobId } from "../schema.js";
import { BranchName } from "../worktree.js";

export const merge = {
  args: Type.Object({
    id: JobId,
    /** The branch to merge into (default: the worktree's base). */
    into: Type.Optional(BranchName),
  }),
  result: Type.Object({
    /** The branch merged into, and its commit now. */
    into: Type.String(),
    commit: Type.String(),
    /** A fast-forward (no merge commit), or a merge commit. */
    fastForward: Type.Boolean(),
    /** The files it changed in `into`. */
    files: Type.Array(Type.String()),
  }),
} as const;
