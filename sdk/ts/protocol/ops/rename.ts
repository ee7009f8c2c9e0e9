/**
 * `rename` (protocol.md, "The hub's ops"): the user's name for a job (protocol.md, "roost's
 * choices": A job's name).
 */
import Type from "typebox";
import { Empty, JobId, JobName } from "../schema.js";

export const rename = { args: Type.Object({ id: JobId, name: JobName }), result: Empty } as const;
