/**
 * `speak_for` (protocol.md, "The peer ops"): a connection that acts as a job in the peer ops and on
 * the task board without reporting: its row stays as its reports, or its screen, make it.
 */
import Type from "typebox";
import { JobId, Token } from "../schema.js";

export const speak_for = {
  args: Type.Object({ id: JobId, token: Token }),
  result: Type.Object({}),
} as const;
