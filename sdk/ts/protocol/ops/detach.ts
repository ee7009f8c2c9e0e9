/** `detach` (protocol.md, "The hub's ops"): stop watching a job's terminal. */
import Type from "typebox";
import { Empty, JobId } from "../schema.js";

export const detach = { args: Type.Object({ id: JobId }), result: Empty } as const;
