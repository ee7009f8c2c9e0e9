/** `schedule-add` (protocol.md, "Schedules"): a launch on a clock; at most 100 schedules. */
import Type from "typebox";
import { MISSED_RULES, Schedule, ScheduleLaunch, WhenText } from "../schedules.js";
import { LIMITS, oneOf } from "../schema.js";

export const scheduleAdd = {
  args: Type.Object({
    when: WhenText,
    launch: ScheduleLaunch,
    /** The schedule's own name (default: the task's first words). */
    name: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.name })),
    missed: Type.Optional(oneOf(MISSED_RULES)),
  }),
  result: Type.Object({ schedule: Schedule }),
} as const;
