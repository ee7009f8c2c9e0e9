/**
 * `schedule-when` (protocol.md, "Schedules"): a `when` read as `schedule-add` would, saved
 * nowhere: in words, its time zone and its next runs (the hub's form shows them before it saves).
 */
import Type from "typebox";
import { WhenText } from "../schedules.js";

export const scheduleWhen = {
  args: Type.Object({
    when: WhenText,
    /** How many of the next runs (default 3). */
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
  }),
  result: Type.Object({
    when: Type.String(),
    words: Type.String(),
    timeZone: Type.String(),
    /** ISO 8601 (UTC), the soonest first; fewer when it runs no more. */
    next: Type.Array(Type.String()),
  }),
} as const;
