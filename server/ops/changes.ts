/** `changes` (protocol.md, "The hub's ops"): a job's diff, read-only; logic in core/worktrees/changes.ts. */
import { changes } from "../core/worktrees/changes.js";
import { defineOp } from "./define.js";

export const changesOp = defineOp({
  name: "changes",
  allow: ["hub"],
  acts: false,
  handler: (core, args) => changes(core, args.id, args.stat ?? false),
});
