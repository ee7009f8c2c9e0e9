/** `merge` (protocol.md, "The hub's ops"): a job's branch into its base branch; logic in core/worktrees/merge.ts. */
import { merge } from "../core/worktrees/merge.js";
import { defineOp } from "./define.js";

export const mergeOp = defineOp({
  name: "merge",
  allow: ["hub"],
  acts: true,
  handler: (core, args, caller) => merge(core, args, caller.actor),
});
