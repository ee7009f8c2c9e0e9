/** `resize` (terminals.md, "Watching and typing"): logic in core/resize.ts. */
import { resize } from "../core/resize.js";
import { defineOp } from "./define.js";

export const resizeOp = defineOp({
  name: "resize",
  allow: ["hub"],
  acts: true,
  handler: async (core, args) => {
    await resize(core, args);
    return {};
  },
});
