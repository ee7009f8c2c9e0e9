/** `detach` (terminals.md, "Watching and typing"): logic in core/terminals/viewers.ts. */
import { defineOp, streamOf } from "./define.js";

export const detachOp = defineOp({
  name: "detach",
  allow: ["hub"],
  acts: false,
  relayed: true,
  stream: true,
  handler: (core, args, caller) => {
    core.viewers.detachFor(streamOf(caller), args.id);
    return {};
  },
});
