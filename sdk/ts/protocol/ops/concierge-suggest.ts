/**
 * `concierge-suggest` (docs/protocol.md, "`concierge-suggest`"): on the concierge's connection, an answer it suggests
 * to a session that waits; the row carries it (`suggested`) until the row moves on.
 */
import Type from "typebox";
import { AnswerArgs } from "../concierge.js";
import { Row } from "../schema.js";

export const conciergeSuggest = {
  args: AnswerArgs,
  result: Type.Object({ row: Row }),
} as const;
