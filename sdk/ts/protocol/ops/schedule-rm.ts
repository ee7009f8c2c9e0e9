/** `schedule-rm` (protocol.md, "Schedules"): the schedule goes; the jobs it started stay. */
import Type from "typebox";
import { ScheduleId } from "../schedules.js";
import { Empty } from "../schema.js";

export const scheduleRm = { args: Type.Object({ id: ScheduleId }), result: Empty } as const;
