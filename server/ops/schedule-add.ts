/** `schedule-add` (protocol.md, "Schedules"): a launch on a clock; logic in core/schedules/schedules.ts. */
import { defineOp } from "./define.js";

export const scheduleAddOp = defineOp({
  name: "schedule-add",
  allow: ["hub"],
  acts: true,
  handler: async (core, args, caller) => ({ schedule: await core.schedules.add(args, caller.actor) }),
});
