/** `rm` (protocol.md, "The hub's ops"): stops the job, then removes its row, replies and directory. */
import Type from "typebox";
import { Empty, JobId } from "../schema.js";

export const rm = { args: Type.Object({ id: JobId }), result: Empty } as const;
