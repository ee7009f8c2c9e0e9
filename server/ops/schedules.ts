/** `schedules` (protocol.md, "Schedules"): every schedule; logic in core/schedules/schedules.ts. */
import { defineOp } from "./define.js";

export const schedulesOp = defineOp({
  name: "schedules",
  allow: ["hub"],
  acts: false,
  handler: (core) => ({ schedules: core.schedules.list() }),
});
