/**
 * `concierge-reply` (agent-protocol.md, M45): on the concierge's connection, an answer to a session
 * that waits for a question, in the user's place: `policy` unless the policy allows, `bad_request`
 * unless the row waits for a question. A `reply` in the feed by `concierge`.
 */
import Type from "typebox";
import { ConciergeAnswer } from "../concierge.js";
import { JobId, LIMITS } from "../schema.js";

export const conciergeReply = {
  args: Type.Object({
    id: JobId,
    text: Type.String({ minLength: 1, maxLength: LIMITS.text }),
    why: Type.Optional(Type.String({ maxLength: LIMITS.summary })),
  }),
  result: Type.Object({ answered: ConciergeAnswer }),
} as const;
