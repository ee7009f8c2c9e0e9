/** `input` (terminals.md, "Watching and typing"): logic in core/terminals/input.ts. */
import { input } from "../core/terminals/input.js";
import { defineOp } from "./define.js";

export const inputOp = defineOp({
  name: "input",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: async (core, args) => {
    await input(core, args);
    return {};
  },
});
