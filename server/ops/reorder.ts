/** `reorder` (protocol.md, "roost's choices"): logic in core/jobs/reorder.ts. */
import { reorder } from "../core/jobs/reorder.js";
import { defineOp } from "./define.js";

export const reorderOp = defineOp({
  name: "reorder",
  allow: ["hub"],
  acts: true,
  handler: (core, args) => {
    reorder(core, args);
    return {};
  },
});
