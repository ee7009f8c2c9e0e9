/** `pending` (protocol.md, "The hub's ops"): a job's replies not yet taken (acked, or typed), oldest first. */
import Type from "typebox";
import { JobId, oneOf, REPLY_MODES } from "../schema.js";

export const pending = {
  args: Type.Object({ id: JobId }),
  result: Type.Object({
    replies: Type.Array(
      Type.Object({
        seq: Type.Integer(),
        text: Type.String(),
        mode: Type.Union([oneOf(REPLY_MODES), Type.Null()]),
        // null: the user's; else a peer's item
        kind: Type.Union([Type.String(), Type.Null()]),
        at: Type.String(),
      }),
    ),
  }),
} as const;
