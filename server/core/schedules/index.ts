/**
 * The schedules' room: the `when` vocabulary, what a due schedule does, the schedules kept and run.
 * What the other rooms use of it.
 */
export type { Schedules } from "./schedules.js";
export { parseWhen, type When } from "./when.js";
