/** `rm` (protocol.md, "roost's choices"): stops the job, then removes it; logic in core/lifecycle.ts. */
import { remove } from "../core/lifecycle.js";
import { defineOp } from "./define.js";

export const rmOp = defineOp({
  name: "rm",
  allow: ["hub"],
  acts: true,
  handler: async (core, args, caller) => {
    await remove(core, core.registry.get(args.id), caller.actor);
    return {};
  },
});
