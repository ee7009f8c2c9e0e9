/** `queue-cancel` (protocol.md, "The merge queue"): a queued entry dropped; logic in core/queue/queue.ts. */
import { defineOp } from "./define.js";

export const queueCancelOp = defineOp({
  name: "queue-cancel",
  allow: ["hub"],
  acts: true,
  handler: async (core, args, caller) => ({ entry: await core.queue.cancel(args.n, caller.actor) }),
});
