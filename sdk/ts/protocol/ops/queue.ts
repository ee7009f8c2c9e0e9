/** `queue` (protocol.md, "The merge queue"): the entries queued and running, and the latest 100 ended. */
import Type from "typebox";
import { QueueEntry } from "../queue.js";
import { Empty } from "../schema.js";

export const queue = { args: Empty, result: Type.Object({ entries: Type.Array(QueueEntry) }) } as const;
