/** `stop` (protocol.md, "roost's choices"): answers once the process has ended; logic in core/jobs/lifecycle.ts. */
import { SLEPT_WORDS, stop } from "../core/jobs/index.js";
import { defineOp } from "./define.js";

export const stopOp = defineOp({
  name: "stop",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: async (core, args, caller) => {
    // reason idle: put to sleep (the hub's Sleep, `roost stop --sleep`), as its idleStop would.
    const cause = args.reason === "idle" ? { why: "idle" as const, words: SLEPT_WORDS } : null;
    await stop(core, core.registry.get(args.id), caller.actor, cause);
    return {};
  },
});
