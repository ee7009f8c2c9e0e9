/** `send` (protocol.md, "The peer ops"): a message to another session, as a peer item. */
import Type from "typebox";
import { ITEM_OUTCOMES, oneOf, PeerText, REPLY_MODES, RequestId, SessionRef } from "../schema.js";

export const send = {
  args: Type.Object({
    /** An id, or a name exactly one live session has. */
    to: Type.String({ minLength: 1, maxLength: 200 }),
    text: PeerText,
    mode: Type.Optional(oneOf(REPLY_MODES)),
    /** A resend with the same id (its answer lost to a restart) is answered what the first did. */
    requestId: Type.Optional(RequestId),
  }),
  result: Type.Object({
    outcome: oneOf(ITEM_OUTCOMES),
    to: SessionRef,
    /** A resend: the first's message, not sent again. */
    duplicate: Type.Optional(Type.Boolean()),
  }),
} as const;
