/** `reorder` (protocol.md, "The hub's ops"): the named jobs first, in the order given. */
import Type from "typebox";
import { Empty, JobId } from "../schema.js";

export const reorder = {
  args: Type.Object({ ids: Type.Array(JobId, { minItems: 1, maxItems: 10000 }) }),
  result: Empty,
} as const;
