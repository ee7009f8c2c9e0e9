/**
 * `rm` (protocol.md, "roost's choices"): stops the job, then removes it and its worktree; logic in
 * core/lifecycle.ts and core/worktrees.ts.
 */
import { remove } from "../core/lifecycle.js";
import { defineOp } from "./define.js";

export const rmOp = defineOp({
  name: "rm",
  allow: ["hub"],
  acts: true,
  handler: async (core, args, caller) => {
    const { id, ...options } = args;
    await remove(core, core.registry.get(id), caller.actor, options);
    return {};
  },
});
