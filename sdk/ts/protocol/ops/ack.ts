/** `ack` (protocol.md, `ack`): the agent took its replies up to `seq`. */
import Type from "typebox";
import { Empty, JobId, Token } from "../schema.js";

export const ack = {
  args: Type.Object({
    id: JobId,
    token: Token,
    seq: Type.Integer({ minimum: 1 }),
    exact: Type.Optional(Type.Boolean()),
  }),
  result: Empty,
} as const;
