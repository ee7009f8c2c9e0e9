/**
 * What a task on the board means to the person (or agent) looking at it, the same on every face
 * (the hub's board, `roost tasks`, the example agents): an open task whose `after` still waits on
 * one that is neither done nor dropped is `blocked` (a claim of it is refused `blocked`); a done
 * task whose result says it failed (`taskFailed`) is `failed`.
 *
 * The schema set is imported for its types alone.
 */
import type { BoardTask } from "./ops/task.js";

export const TASK_VIEWS = ["open", "blocked", "claimed", "done", "failed", "dropped"] as const;
export type TaskView = (typeof TASK_VIEWS)[number];

type TaskLike = Pick<BoardTask, "id" | "state" | "after"> & { result?: string | null };

/** A result that says the task failed: it begins with "failed" or "error" (what `done {failed: true}` keeps). */
const FAILED_WORD = /^\s*(failed|failure|error)\b/i;
/** A result that names an exit code: "exit 1", "exit code 2", "exited with 3", "exit status: 1". */
const EXIT = /\bexit(?:ed)?(?:\s+with)?(?:\s+(?:code|status))?\s*[:=]?\s*(-?\d+)\b/gi;

/** Whether a done task failed, as its result says: a first word of failure, or a non-zero exit. */
export function taskFailed(task: Pick<BoardTask, "state"> & { result?: string | null }): boolean {
  const result = task.result;
  if (task.state !== "done" || !result) return false;
  if (FAILED_WORD.test(result)) return true;
  for (const m of result.matchAll(EXIT)) if (Number(m[1]) !== 0) return true;
  return false;
}

/** A result kept for `done {failed: true}`: said to have failed, in its first word, as taskFailed reads it. */
export function failedResult(result: string | null, max: number): string {
  if (!result) return "failed";
  return FAILED_WORD.test(result) ? result : `failed: ${result}`.slice(0, max);
}

/** Whether a task no longer holds others back: done or dropped (or gone from the board: only those go). */
const settled = (t: Pick<BoardTask, "state"> | undefined) =>
  !t || t.state === "done" || t.state === "dropped";

/** The board, or the board by id (`byId`: made once for a whole board's views). */
type BoardLike = readonly TaskLike[] | ReadonlyMap<number, TaskLike>;

/** The board by id, once: what `taskView` and `waitingOn` look tasks up in for a whole board. */
export const byId = (board: readonly TaskLike[]): ReadonlyMap<number, TaskLike> =>
  new Map(board.map((t) => [t.id, t]));

/** The tasks in `task.after` it still waits on (neither done nor dropped), in `after`'s order. */
export function waitingOn(task: TaskLike, board: BoardLike): number[] {
  if (task.after.length === 0) return [];
  const tasks = board instanceof Map ? board : byId(board as readonly TaskLike[]);
  return task.after.filter((id) => !settled(tasks.get(id)));
}

/**
 * The task's word on every face (the hub, `roost tasks`, the tools' text, `task`'s `view`): its
 * state, `blocked` for an open one that waits on another, `failed` for a done one that failed.
 */
export function taskView(task: TaskLike, board: BoardLike): TaskView {
  if (taskFailed(task)) return "failed";
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
