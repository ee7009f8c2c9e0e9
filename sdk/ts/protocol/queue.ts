/**
 * The merge queue (docs/worktrees.md, "The merge queue"; protocol.md, `queue-add`): jobs' branches
 * landed one at a time on their target branch, each merged in a scratch worktree and checked there
 * first. An entry as the ops answer it and the `queue` push carries it.
 */
import Type, { type Static } from "typebox";
import { QUEUE_STATES } from "./queue-states.js";
import { JobId, oneOf } from "./schema.js";

export { QUEUE_ENDED, QUEUE_OUTPUT_BYTES, QUEUE_STATES, type QueueState } from "./queue-states.js";

export const QueueEntry = Type.Object({
  /** Its number: 1, 2, …, never reused; the queue lands in this order. */
  n: Type.Integer({ minimum: 1 }),
  id: JobId,
  repo: Type.String(),
  branch: Type.String(),
  /** The branch it lands on: `into` as asked, else the job's `worktree.base`. */
  into: Type.String(),
  check: Type.Union([Type.String(), Type.Null()]),
  tell: Type.Boolean(),
  push: Type.Union([Type.String(), Type.Null()]),
  clean: Type.Boolean(),
  state: oneOf(QUEUE_STATES),
  /** Why it failed, or what it waits on, or what went wrong after landing (a push), in words. */
  detail: Type.Union([Type.String(), Type.Null()]),
  /** The files that conflicted, when that is why it failed. */
  conflicts: Type.Array(Type.String()),
  /** The check's output, its last 8 KiB. */
  output: Type.String(),
  /** What `into` is once it landed. */
  commit: Type.Union([Type.String(), Type.Null()]),
  /** Whether `push` went; null without one, or before landing. */
  pushed: Type.Union([Type.Boolean(), Type.Null()]),
  added: Type.String(),
  started: Type.Union([Type.String(), Type.Null()]),
  ended: Type.Union([Type.String(), Type.Null()]),
});
export type QueueEntry = Static<typeof QueueEntry>;

/** Pushed to subscribers whenever an entry changes (its check's output at most once a second). */
export const QueueEvent = Type.Object({ event: Type.Literal("queue"), entry: QueueEntry });
export type QueueEvent = Static<typeof QueueEvent>;
