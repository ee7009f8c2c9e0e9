/** `concierge-policy` (protocol.md, "The concierge"): on the concierge's connection, the policy in force. */
import { conciergeOf } from "../core/concierge/concierge-answers.js";
import { defineOp, socketConnection } from "./define.js";

export const conciergePolicyOp = defineOp({
  name: "concierge-policy",
  allow: ["concierge"],
  acts: false,
  socketOnly: true,
  handler: (core, _args, caller) => {
    conciergeOf(core, socketConnection(caller));
    return { policy: { ...core.concierge.policy } };
  },
});
