/** `schedule-pause` (protocol.md, "Schedules"): logic in core/schedules/schedules.ts. */
import { defineOp } from "./define.js";

export const schedulePauseOp = defineOp({
  name: "schedule-pause",
  allow: ["hub"],
  acts: true,
  handler: async (core, args, caller) => {
    await core.schedules.pause(args.id, args.paused, caller.actor);
    return {};
  },
});
