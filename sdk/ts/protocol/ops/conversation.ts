/**
 * `conversation` (protocol.md, "The conversation"): a job's conversation as roost keeps it. Without
 * `after`, its newest entries; with `after`, those that came after that `n`, oldest first.
 */
import Type from "typebox";
import { KeptEntry } from "../conversation.js";
import { LIMITS } from "../limits.js";
import { JobId } from "../schema.js";

export const conversation = {
  args: Type.Object({
    id: JobId,
    after: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.entriesRead })),
  }),
  result: Type.Object({
    id: Type.String(),
    entries: Type.Array(KeptEntry),
    /** The newest entry's `n` (0: none yet). */
    last: Type.Integer(),
    /** Entries between these and `last` were left out (the limit): ask again `after` the last one given. */
    more: Type.Boolean(),
  }),
} as const;
