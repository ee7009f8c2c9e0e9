/** `pending` (protocol.md, "The hub's ops"): a job's replies not yet taken; logic in core/pending.ts. */
import { pending } from "../core/pending.js";
import { defineOp } from "./define.js";

export const pendingOp = defineOp({
  name: "pending",
  allow: ["hub"],
  acts: false,
  handler: (core, args) => pending(core, args),
});
