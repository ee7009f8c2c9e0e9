/** `respawn` (protocol.md, "The hub's ops"): the job started again under the same id. */
import Type from "typebox";
import { JobId, Row } from "../schema.js";

export const respawn = { args: Type.Object({ id: JobId }), result: Type.Object({ job: Row }) } as const;
