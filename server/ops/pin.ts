/** `pin` (protocol.md, "The hub's ops"): logic in core/jobs/pin.ts. */
import { pin } from "../core/jobs/pin.js";
import { defineOp } from "./define.js";

export const pinOp = defineOp({
  name: "pin",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: (core, args) => {
    pin(core, args);
    return {};
  },
});
