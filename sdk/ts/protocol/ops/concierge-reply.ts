/**
 * `concierge-reply` (docs/protocol.md, "`concierge-reply`"): on the concierge's connection, an answer to a session
 * that waits for a question, in the user's place: `policy` unless the policy allows, `bad_request`
 * unless the row waits for a question. A `reply` in the feed by `concierge`.
 */
import Type from "typebox";
import { AnswerArgs, ConciergeAnswer } from "../concierge.js";

export const conciergeReply = {
  args: AnswerArgs,
  result: Type.Object({ answered: ConciergeAnswer }),
} as const;
