/**
 * The board read, not changed: its counts (the hubs' `board` push) and what differs from one board
 * to the next (what a step writes). Pure, as board.ts's `step` is.
 */
import { type BoardCounts, type BoardTask, byId, waitingOn } from "../../../sdk/ts/protocol/index.js";
import type { Board } from "./board.js";

export function counts(board: Board): BoardCounts {
  const c = { open: 0, claimed: 0, blocked: 0, done: 0 };
  const all = byId(board.tasks); // once, not once a task: a board is up to 200
  for (const t of board.tasks) {
    if (t.state === "open") c[waitingOn(t, all).length > 0 ? "blocked" : "open"]++;
    else if (t.state === "claimed") c.claimed++;
    else if (t.state === "done") c.done++;
  }
  return c;
}

/** The tasks written again, and the ids gone, from one board to the next. */
export function changedBetween(before: Board, after: Board): { saved: BoardTask[]; removed: number[] } {
  // Most steps change tasks in place (a claim, a done): the same ids in the same places, compared
  // a place at a time, without a map of the board's 200 for each step.
  const same = before.tasks.length === after.tasks.length;
  if (same && after.tasks.every((t, i) => t.id === before.tasks[i]!.id))
    return { saved: after.tasks.filter((t, i) => t !== before.tasks[i]), removed: [] };
  const old = new Map(before.tasks.map((t) => [t.id, t]));
  const saved = after.tasks.filter((t) => old.get(t.id) !== t);
  const kept = new Set(after.tasks.map((t) => t.id));
  return { saved, removed: [...old.keys()].filter((id) => !kept.has(id)) };
}
