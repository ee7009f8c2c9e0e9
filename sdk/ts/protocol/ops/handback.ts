/** `handback` (protocol.md, "The peer ops"): a child's result to its parent; `done` (the default) ends the child. */
import Type from "typebox";
import { ITEM_OUTCOMES, oneOf, PeerText, SessionRef } from "../schema.js";

export const handback = {
  args: Type.Object({ text: PeerText, done: Type.Optional(Type.Boolean()) }),
  result: Type.Object({ outcome: oneOf(ITEM_OUTCOMES), to: SessionRef }),
} as const;
