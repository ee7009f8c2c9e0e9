/** `concierge-reply` (protocol.md, "The concierge"): on the concierge's connection; logic in core/concierge/concierge-answers.ts. */
import { answer, conciergeOf } from "../core/concierge/concierge-answers.js";
import { defineOp, socketConnection } from "./define.js";

export const conciergeReplyOp = defineOp({
  name: "concierge-reply",
  allow: ["concierge"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => answer(core, conciergeOf(core, socketConnection(caller)), args),
});
