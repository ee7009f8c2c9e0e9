/** `queue` (protocol.md, "The merge queue"): its entries; logic in core/queue/queue.ts. */
import { defineOp } from "./define.js";

export const queueOp = defineOp({
  name: "queue",
  allow: ["hub"],
  acts: false,
  handler: (core) => ({ entries: core.queue.list() }),
});
