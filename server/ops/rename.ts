/** `rename` (protocol.md, "The hub's ops"): logic in core/jobs/rename.ts, the name rules in core/jobs/names.ts. */
import { rename } from "../core/jobs/rename.js";
import { defineOp } from "./define.js";

export const renameOp = defineOp({
  name: "rename",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: (core, args, caller) => {
    rename(core, args, caller.actor);
    return {};
  },
});
