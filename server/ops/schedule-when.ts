/** `schedule-when` (protocol.md, "Schedules"): a `when` previewed, saved nowhere; logic in core/schedules/when.ts. */
import { defineOp } from "./define.js";

export const scheduleWhenOp = defineOp({
  name: "schedule-when",
  allow: ["hub"],
  acts: false,
  handler: (core, args) => core.schedules.preview(args),
});
