/** `input` (protocol.md, "The hub's ops"): keystrokes typed into a running job's terminal. */
import Type from "typebox";
import { Empty, JobId, LIMITS } from "../schema.js";

export const input = {
  args: Type.Object({ id: JobId, data: Type.String({ minLength: 1, maxLength: LIMITS.text }) }),
  result: Empty,
} as const;
