/** `stop` (protocol.md, "The hub's ops"): SIGTERM, then SIGKILL after the grace; answers once ended. */
import Type from "typebox";
import { Empty, JobId } from "../schema.js";

export const stop = { args: Type.Object({ id: JobId }), result: Empty } as const;
