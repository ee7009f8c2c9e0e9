/** `rm` (protocol.md, "The hub's ops"): stops the job, then removes its row, replies, directory and worktree. */
import Type from "typebox";
import { Empty, JobId } from "../schema.js";

export const rm = {
  args: Type.Object({
    id: JobId,
    /** Delete the worktree's branch too (it is kept by default). */
    deleteBranch: Type.Optional(Type.Boolean()),
    /** Remove a worktree with uncommitted changes (refused `conflict` otherwise). */
    force: Type.Optional(Type.Boolean()),
  }),
  result: Empty,
} as const;
