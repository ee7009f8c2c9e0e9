/** `stop` (protocol.md, "The hub's ops"): SIGTERM, then SIGKILL after the grace; answers once ended. */
import Type from "typebox";
import { Empty, JobId } from "../schema.js";

export const stop = {
  args: Type.Object({
    id: JobId,
    /** "idle": put to sleep (its row's `stopReason`, docs/budgets.md); absent: a plain stop. */
    reason: Type.Optional(Type.Literal("idle")),
  }),
  result: Empty,
} as const;
