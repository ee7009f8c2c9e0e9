/** `concierge-policy` (docs/protocol.md, "`concierge-policy`"): on the concierge's connection, the policy in force. */
import Type from "typebox";
import { ConciergePolicy } from "../concierge.js";
import { Empty } from "../schema.js";

export const conciergePolicy = {
  args: Empty,
  result: Type.Object({ policy: ConciergePolicy }),
} as const;
