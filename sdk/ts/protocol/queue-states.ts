/** The merge queue's plain values (queue.ts has its schema): the CLI loads these without typebox. */

/** An entry's life: queued, then merging, checking (when it has a check), landing; then how it ended. */
export const QUEUE_STATES = [
  "queued",
  "merging",
  "checking",
  "landing",
  "landed",
  "failed",
  "cancelled",
] as const;
export type QueueState = (typeof QUEUE_STATES)[number];
export const QUEUE_ENDED: ReadonlySet<QueueState> = new Set(["landed", "failed", "cancelled"]);

/** The check's output an entry carries: its last 8 KiB (the whole is in `$ROOST_HOME/queue/<n>.log`). */
export const QUEUE_OUTPUT_BYTES = 8192;
