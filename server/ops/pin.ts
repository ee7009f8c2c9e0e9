/** `pin` (protocol.md, "The hub's ops"): logic in core/pin.ts. */
import { pin } from "../core/pin.js";
import { defineOp } from "./define.js";

export const pinOp = defineOp({
  name: "pin",
  allow: ["hub"],
  acts: true,
  handler: (core, args) => {
    pin(core, args);
    return {};
  },
});
