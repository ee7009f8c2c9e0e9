/** `report` (protocol.md, "The agent's ops"): the agent's state, a full snapshot each time. */
import Type from "typebox";
import { Empty, JobId, Report, Token } from "../schema.js";

export const report = {
  args: Type.Object({ id: JobId, token: Token, report: Report }),
  result: Empty,
} as const;
