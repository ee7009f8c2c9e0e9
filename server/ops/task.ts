/** `task` (protocol.md, "The task board"): on every connection; logic in core/task.ts. */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { defineOp } from "./define.js";

export const taskOp = defineOp({
  name: "task",
  allow: ["hub", "session"],
  acts: true,
  handler: () => {
    throw new RoostError("unsupported", "the task board is not built yet");
  },
});
