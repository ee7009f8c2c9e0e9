/** `schedule-run` (protocol.md, "Schedules"): a run now, off the clock; logic in core/schedules/schedules.ts. */
import { defineOp } from "./define.js";

export const scheduleRunOp = defineOp({
  name: "schedule-run",
  allow: ["hub"],
  acts: true,
  handler: (core, args, caller) => core.schedules.runNow(args.id, caller.actor),
});
