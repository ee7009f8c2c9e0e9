/** `schedule-pause` (protocol.md, "Schedules"): paused, it runs only by hand; resumed, from now on. */
import Type from "typebox";
import { ScheduleId } from "../schedules.js";
import { Empty } from "../schema.js";

export const schedulePause = {
  args: Type.Object({ id: ScheduleId, paused: Type.Boolean() }),
  result: Empty,
} as const;
