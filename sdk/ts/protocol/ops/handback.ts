/** `handback` (protocol.md, "The peer ops"): a child's result to its parent; `done` (the default) ends the child. */
import Type from "typebox";
import { ITEM_OUTCOMES, oneOf, PeerText, RequestId, SessionRef } from "../schema.js";

export const handback = {
  args: Type.Object({
    text: PeerText,
    done: Type.Optional(Type.Boolean()),
    /** A resend with the same id (its answer lost to a restart) is answered what the first did. */
    requestId: Type.Optional(RequestId),
  }),
  result: Type.Object({
    outcome: oneOf(ITEM_OUTCOMES),
    to: SessionRef,
    /** A resend: the first's item, not sent again. */
    duplicate: Type.Optional(Type.Boolean()),
  }),
} as const;
