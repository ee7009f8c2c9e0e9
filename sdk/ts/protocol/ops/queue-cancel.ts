/** `queue-cancel` (protocol.md, "The merge queue"): a queued entry dropped (a running one: `conflict`). */
import Type from "typebox";
import { QueueEntry } from "../queue.js";

export const queueCancel = {
  args: Type.Object({ n: Type.Integer({ minimum: 1 }) }),
  result: Type.Object({ entry: QueueEntry }),
} as const;
