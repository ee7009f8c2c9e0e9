/**
 * The merge queue's room (docs/worktrees.md, "The merge queue"): jobs' branches landed one at a
 * time, each checked on its target first. What the other rooms use of it.
 */
export { MergeQueue, type QueueParts } from "./queue.js";
