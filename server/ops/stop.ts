/** `stop` (protocol.md, "roost's choices"): answers once the process has ended; logic in core/jobs/lifecycle.ts. */
import { stop } from "../core/jobs/lifecycle.js";
import { defineOp } from "./define.js";

export const stopOp = defineOp({
  name: "stop",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: async (core, args, caller) => {
    await stop(core, core.registry.get(args.id), caller.actor);
    return {};
  },
});
