/**
 * `task` (protocol.md, "The task board"): on every connection, the hub's and each session's; logic
 * in core/board/task.ts. `list` only looks (a read-only token's, and `GET /api/task`); the rest act.
 */
import { task } from "../core/board/task.js";
import { defineOp } from "./define.js";

export const taskOp = defineOp({
  name: "task",
  allow: ["hub", "session"],
  acts: (args) => args.action !== "list",
  looks: 'task {action: "list"}',
  handler: (core, args, caller) => task(core, caller.conn, args),
});
