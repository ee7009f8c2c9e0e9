/** `concierge-act` (protocol.md, "The concierge"): on the concierge's connection; logic in core/concierge/concierge-answers.ts. */
import { act, conciergeOf } from "../core/concierge/concierge-answers.js";
import { defineOp, socketConnection } from "./define.js";

export const conciergeActOp = defineOp({
  name: "concierge-act",
  allow: ["concierge"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => act(core, conciergeOf(core, socketConnection(caller)), args),
});
