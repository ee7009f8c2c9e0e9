/** `schedules` (protocol.md, "Schedules"): every schedule, with its next run and its last runs. */
import Type from "typebox";
import { Schedule } from "../schedules.js";
import { Empty } from "../schema.js";

export const schedules = { args: Empty, result: Type.Object({ schedules: Type.Array(Schedule) }) } as const;
