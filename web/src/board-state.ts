/**
 * The task board as the page knows it: its tasks (`task {action: "list"}`, a look any token may
 * take) and its counts. The counts come live with each `board` push (until the first, after a
 * connection, they are made from the tasks as the daemon makes them); the tasks are read again
 * after each push and each `task` feed entry (a change that moves no count, an assignment, still
 * changes what the board page and a job's page show), and after every (re)connection. Reads are
 * one at a time: a change during one is read by the next.
 */
import { taskFailed, waitingOn } from "../../sdk/ts/protocol/board-view.js";
import { type BoardCounts, type BoardTask, get } from "./api.js";
import type { Live } from "./live.js";

/** The counts as the daemon makes them (schema.ts, BoardCounts), from the tasks: for the first read. */
export function countsOf(tasks: readonly BoardTask[]): BoardCounts {
  const counts = { open: 0, claimed: 0, blocked: 0, done: 0 };
  for (const t of tasks) {
    if (t.state === "open") counts[waitingOn(t, tasks).length ? "blocked" : "open"]++;
    else if (t.state === "claimed" || t.state === "done") counts[t.state]++;
  }
  return counts;
}

/** "3 open · 1 blocked · 2 claimed · 5 done": the board's counts in words (none: ""). */
export function countWords(c: { open: number; blocked: number; claimed: number; done: number }): string {
  return (["open", "blocked", "claimed", "done"] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${k}`)
    .join(" · ");
}

/**
 * What on the board needs the user, for its tab's badge: the blocked tasks (the counts') and the
 * failed ones (a done task whose result says so: board-view.ts). Finished tasks need no one.
 */
export function needWords(counts: BoardCounts | null, tasks: readonly BoardTask[] | null): string {
  const failed = tasks?.filter(taskFailed).length ?? 0;
  const blocked = counts?.blocked ?? 0;
  return [blocked ? `${blocked} blocked` : "", failed ? `${failed} failed` : ""].filter(Boolean).join(" · ");
}

export class BoardState {
  /** Null until first read (or while it cannot be: an old daemon). */
  tasks: BoardTask[] | null = null;
  counts: BoardCounts | null = null;
  /** Why the board could not be read, when it could not. */
  error: string | null = null;
  private readonly listeners = new Set<() => void>();
  private reading = false;
  private again = false;
  /** Pushes since the connection: once one came, the counts are the daemon's own, not read from the tasks. */
  private pushes = 0;

  constructor(live: Live) {
    live.onConnect(() => {
      this.pushes = 0;
      this.read();
    });
    live.onBoard((counts) => {
      this.pushes++;
      this.counts = counts;
      this.changed();
      this.read();
    });
    live.onFeed((e) => {
      if (e.kind === "task") this.read();
    });
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The task with that id, if the board has it. */
  task(id: number): BoardTask | undefined {
    return this.tasks?.find((t) => t.id === id);
  }

  /** Reads the tasks again (at once, or after the read under way). */
  read(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    get<{ tasks: BoardTask[] }>("task?action=list")
      .then(
        ({ tasks }) => {
          this.tasks = tasks;
          this.error = null;
          if (this.pushes === 0) this.counts = countsOf(tasks);
        },
        (err: Error) => {
          this.error = err.message;
        },
      )
      .finally(() => {
        this.reading = false;
        this.changed();
        if (this.again) {
          this.again = false;
          this.read();
        }
      });
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}
