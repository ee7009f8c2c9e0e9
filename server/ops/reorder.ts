/** `reorder` (protocol.md, "roost's choices"): logic in core/reorder.ts. */
import { reorder } from "../core/reorder.js";
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
