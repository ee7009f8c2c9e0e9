/** `dispatch` (protocol.md, "The hub's ops"): a new job; logic in core/jobs/dispatch.ts. */
import { dispatch } from "../core/jobs/dispatch.js";
import { defineOp } from "./define.js";

export const dispatchOp = defineOp({
  name: "dispatch",
  allow: ["hub"],
  acts: true,
  handler: (core, args, caller) => dispatch(core, args, caller.actor),
});
