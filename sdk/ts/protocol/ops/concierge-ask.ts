/** `concierge-ask` (docs/protocol.md, "`concierge-ask`"): the user's words to the concierge, as a reply to its job. */
import Type from "typebox";
import { LIMITS, RequestId } from "../schema.js";

export const conciergeAsk = {
  args: Type.Object({
    text: Type.String({ minLength: 1, maxLength: LIMITS.text }),
    requestId: Type.Optional(RequestId),
  }),
  result: Type.Object({
    /** The concierge's job, and the reply's seq (absent for a resend of a request id taken). */
    id: Type.String(),
    seq: Type.Optional(Type.Integer()),
    duplicate: Type.Optional(Type.Literal(true)),
  }),
} as const;
