/** `concierge-suggest` (protocol.md, "The concierge"): on the concierge's connection; logic in core/concierge/concierge-answers.ts. */
import { conciergeOf, suggest } from "../core/concierge/concierge-answers.js";
import { defineOp, socketConnection } from "./define.js";

export const conciergeSuggestOp = defineOp({
  name: "concierge-suggest",
  allow: ["concierge"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => suggest(core, conciergeOf(core, socketConnection(caller)), args),
});
