/**
 * What a task on the board means to the person (or agent) looking at it, the same on every face
 * (the hub's board, `roost tasks`, the example agents): an open task whose `after` still waits on
 * one that is neither done nor dropped is `blocked` (a claim of it is refused `blocked`).
 *
 * The schema set is imported for its types alone.
 */
import type { BoardTask } from "./ops/task.js";

export const TASK_VIEWS = ["open", "blocked", "claimed", "done", "dropped"] as const;
export type TaskView = (typeof TASK_VIEWS)[number];

type TaskLike = Pick<BoardTask, "id" | "state" | "after">;

/** Whether a task no longer holds others back: done or dropped (or gone from the board: only those go). */
const settled = (t: Pick<BoardTask, "state"> | undefined) =>
  !t || t.state === "done" || t.state === "dropped";

/** The tasks in `task.after` it still waits on (neither done nor dropped), in `after`'s order. */
export function waitingOn(task: TaskLike, board: readonly TaskLike[]): number[] {
  if (task.after.length === 0) return [];
  const byId = new Map(board.map((t) => [t.id, t]));
  return task.after.filter((id) => !settled(byId.get(id)));
}

/** The task's state as shown: its own, `blocked` for an open one that waits on another. */
export function taskView(task: TaskLike, board: readonly TaskLike[]): TaskView {
  return task.state === "open" && waitingOn(task, board).length > 0 ? "blocked" : task.state;
}

/**
 * The tasks session `self` (its id) may claim now, oldest first: open, waiting on none, and not
 * handed to another session (`assign`) that has yet to claim it.
 */
export function claimable<T extends TaskLike & Pick<BoardTask, "assigned">>(
  board: readonly T[],
  self?: string,
): T[] {
  return board.filter(
    (t) => t.state === "open" && (!t.assigned || t.assigned.id === self) && waitingOn(t, board).length === 0,
  );
}

/** What a `task` feed entry's `why` did, as a verb: "claimed #3 write the notes". */
const WHY_WORDS: Record<string, string> = {
  add: "added",
  claim: "claimed",
  release: "released",
  done: "done",
  drop: "dropped",
  assign: "assigned",
};

/** What a `concierge` feed entry's `why` was (its `undo` and `policy` texts say so themselves). */
const CONCIERGE_WORDS: Record<string, string> = {
  info: "says:",
  need: "needs you:",
  answer: "answers:",
  suggest: "suggests:",
  order: "applied order",
  "order-kept": "keeps order",
  "order-dropped": "drops order",
};

/**
 * A feed entry's text as the faces show it: a `task` entry's says what happened to the task (its
 * `why`), which the text itself leaves to that field, and so does a `concierge` entry's; any other
 * entry's as it is.
 */
export function entryText(e: { kind: string; why?: string | null; text: string }): string {
  const words = e.kind === "task" ? WHY_WORDS : e.kind === "concierge" ? CONCIERGE_WORDS : null;
  const word = words && e.why ? (words[e.why] ?? (e.kind === "task" ? e.why : null)) : null;
  return word ? `${word} ${e.text}` : e.text;
}
