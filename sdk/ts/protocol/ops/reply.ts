/** `reply` (protocol.md, "The hub's ops"): the user's answer to a job, saved before the answer. */
import Type from "typebox";
import { JobId, LIMITS, oneOf, REPLY_MODES, RequestId } from "../schema.js";

export const reply = {
  args: Type.Object({
    id: JobId,
    text: Type.String({ minLength: 1, maxLength: LIMITS.text }),
    mode: Type.Optional(oneOf(REPLY_MODES)),
    requestId: Type.Optional(RequestId),
    /** The row's \`asked\` the answer was drawn for: refused \`conflict\` (nothing sent) if it has moved. */
    ifAsked: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  result: Type.Object({
    saved: Type.Literal(true),
    seq: Type.Optional(Type.Integer()),
    duplicate: Type.Optional(Type.Literal(true)),
    stopped: Type.Optional(Type.Literal(true)),
  }),
} as const;
