/**
 * `concierge-suggest` (agent-protocol.md, M45): on the concierge's connection, an answer it suggests
 * to a session that waits; the row carries it (`suggested`) until the row moves on.
 */
import Type from "typebox";
import { JobId, LIMITS, Row } from "../schema.js";

export const conciergeSuggest = {
  args: Type.Object({
    id: JobId,
    text: Type.String({ minLength: 1, maxLength: LIMITS.text }),
    why: Type.Optional(Type.String({ maxLength: LIMITS.summary })),
  }),
  result: Type.Object({ row: Row }),
} as const;
