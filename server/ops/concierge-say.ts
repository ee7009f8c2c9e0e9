/** `concierge-say` (protocol.md, "The concierge"): on the concierge's connection; logic in core/concierge/concierge.ts. */
import { conciergeOf } from "../core/concierge/concierge-answers.js";
import { actorOf } from "../core/peers/peers.js";
import { defineOp, socketConnection } from "./define.js";

export const conciergeSayOp = defineOp({
  name: "concierge-say",
  allow: ["concierge"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => {
    const job = conciergeOf(core, socketConnection(caller));
    return core.concierge.say(job, args, actorOf(core, job));
  },
});
