/** `pin` (protocol.md, "The hub's ops"): pinned rows come first. */
import Type from "typebox";
import { Empty, JobId } from "../schema.js";

export const pin = { args: Type.Object({ id: JobId, pinned: Type.Boolean() }), result: Empty } as const;
