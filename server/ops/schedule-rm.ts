/** `schedule-rm` (protocol.md, "Schedules"): logic in core/schedules/schedules.ts. */
import { defineOp } from "./define.js";

export const scheduleRmOp = defineOp({
  name: "schedule-rm",
  allow: ["hub"],
  acts: true,
  handler: async (core, args, caller) => {
    await core.schedules.remove(args.id, caller.actor);
    return {};
  },
});
