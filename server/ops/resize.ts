/** `resize` (terminals.md, "Watching and typing"): logic in core/terminals/resize.ts and core/terminals/viewers.ts. */
import { resize } from "../core/terminals/resize.js";
import { defineOp, streamOf } from "./define.js";

export const resizeOp = defineOp({
  name: "resize",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: async (core, args, caller) => {
    // A caller that stays open (a socket connection, a terminal's WebSocket) may view the job.
    await resize(core, args, caller.push && caller.onClose ? streamOf(caller) : null);
    return {};
  },
});
