/** `shutdown` (protocol.md, "The hub's ops"): the daemon exits; the jobs keep running. */
import { Empty } from "../schema.js";

export const shutdown = { args: Empty, result: Empty } as const;
