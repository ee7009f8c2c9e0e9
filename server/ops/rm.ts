/**
 * `rm` (protocol.md, "roost's choices"): stops the job, then removes it and its worktree; logic in
 * core/jobs/lifecycle.ts and core/worktrees/worktrees.ts.
 */
import { remove } from "../core/jobs/lifecycle.js";
import { defineOp } from "./define.js";

export const rmOp = defineOp({
  name: "rm",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: async (core, args, caller) => {
    const { id, ...options } = args;
    await remove(core, core.registry.get(id), caller.actor, options);
    return {};
  },
});
