/** `queue-add` (protocol.md, "The merge queue"): jobs' branches queued to land, in the order given. */
import Type from "typebox";
import { QueueEntry } from "../queue.js";
import { JobId } from "../schema.js";
import { BranchName } from "../worktree.js";

export const queueAdd = {
  args: Type.Object({
    ids: Type.Array(JobId, { minItems: 1, maxItems: 50 }),
    /** The branch to land on (default: each job's worktree base). */
    into: Type.Optional(BranchName),
    /** A shell command run in the merged tree (`sh -c`); the branch lands only if it exits 0. */
    check: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    /** The check's time limit in seconds (default 1800). */
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400 })),
    /** A job whose branch conflicts or fails the check gets a reply saying what to fix. */
    tell: Type.Optional(Type.Boolean()),
    /** A remote's name: `git push REMOTE INTO` after each landing. */
    push: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    /** A landed job's worktree and branch removed, as `rm --delete-branch` does. */
    clean: Type.Optional(Type.Boolean()),
  }),
  result: Type.Object({ entries: Type.Array(QueueEntry) }),
} as const;
