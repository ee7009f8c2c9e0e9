/** `list` (protocol.md, "The hub's ops"): every row, or one job's. */
import Type from "typebox";
import { JobId, Row } from "../schema.js";

export const list = {
  args: Type.Object({ id: Type.Optional(JobId) }),
  result: Type.Object({ rows: Type.Array(Row) }),
} as const;
