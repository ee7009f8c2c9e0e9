/**
 * The task board's room (docs/protocol.md, `task`): its rules, its state, its messages to holders.
 * What the other rooms use of it.
 */
export type { TaskBoard } from "./task-board.js";
