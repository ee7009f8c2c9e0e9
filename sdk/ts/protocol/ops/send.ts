/** `send` (protocol.md, "The peer ops"): a message to another session, as a peer item. */
import Type from "typebox";
import { ITEM_OUTCOMES, oneOf, PeerText, REPLY_MODES, SessionRef } from "../schema.js";

export const send = {
  args: Type.Object({
    /** An id, or a name exactly one live session has. */
    to: Type.String({ minLength: 1, maxLength: 200 }),
    text: PeerText,
    mode: Type.Optional(oneOf(REPLY_MODES)),
  }),
  result: Type.Object({ outcome: oneOf(ITEM_OUTCOMES), to: SessionRef }),
} as const;
