/**
 * `concierge-say` (docs/protocol.md, "`concierge-say`"): on the concierge's own connection, what it tells the user
 * (`info`), what it needs of the user (`need`: raised in the hub as a blocked job is), or its answer
 * to the user's `concierge-ask` (`answer`). A `concierge` entry in the feed.
 */
import Type from "typebox";
import { SAY_KINDS } from "../concierge.js";
import { Empty, LIMITS, oneOf } from "../schema.js";

export const conciergeSay = {
  args: Type.Object({
    kind: oneOf(SAY_KINDS),
    text: Type.String({ minLength: 1, maxLength: LIMITS.conciergeSay }),
  }),
  result: Empty,
} as const;
