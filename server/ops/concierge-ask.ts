/** `concierge-ask` (protocol.md, "The concierge"): the user's words to it; logic in core/concierge/concierge.ts. */
import { defineOp } from "./define.js";

export const conciergeAskOp = defineOp({
  name: "concierge-ask",
  allow: ["hub"],
  acts: true,
  handler: (core, args, caller) => core.concierge.ask(core, args, caller.actor),
});
