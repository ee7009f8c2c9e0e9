/** `queue-add` (protocol.md, "The merge queue"): jobs' branches queued to land; logic in core/queue/queue.ts. */
import { defineOp } from "./define.js";

export const queueAddOp = defineOp({
  name: "queue-add",
  allow: ["hub"],
  acts: true,
  handler: async (core, args, caller) => ({ entries: await core.queue.add(args, caller.actor) }),
});
