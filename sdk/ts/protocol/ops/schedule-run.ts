/** `schedule-run` (protocol.md, "Schedules"): one run now, off the clock: a job, as `dispatch` starts it. */
import Type from "typebox";
import { ScheduleId } from "../schedules.js";
import { Row } from "../schema.js";

export const scheduleRun = {
  args: Type.Object({ id: ScheduleId }),
  result: Type.Object({ job: Row }),
} as const;
