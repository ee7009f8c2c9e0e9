/** `pending` (protocol.md, "The hub's ops"): a job's replies not yet taken; logic in core/jobs/pending.ts. */
import { pending } from "../core/jobs/pending.js";
import { defineOp } from "./define.js";

export const pendingOp = defineOp({
  name: "pending",
  allow: ["hub"],
  acts: false,
  relayed: true,
  handler: (core, args) => pending(core, args),
});
