/** `resize` (protocol.md, "The hub's ops"): a running job's terminal size. */
import Type from "typebox";
import { Empty, JobId } from "../schema.js";

export const resize = {
  args: Type.Object({
    id: JobId,
    cols: Type.Integer({ minimum: 2, maximum: 1000 }),
    rows: Type.Integer({ minimum: 2, maximum: 500 }),
  }),
  result: Empty,
} as const;
