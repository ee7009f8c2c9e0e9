/**
 * Where the task board is kept (docs/protocol.md, "The task board"). The core speaks to a
 * `BoardStore`, not to SQLite: the board is the one part of roost that several daemons may share
 * (a fleet's, docs/fleet.md), and a PostgreSQL board (pg-board.ts) stands beside this one. This one
 * keeps a row a task in roost.db, written in the commit a turn's writes share; it is this daemon's
 * alone, so the board in memory is the truth and a write never finds it changed.
 */
import type { BoardTask } from "../../sdk/ts/protocol/index.js";
import type { GroupCommit } from "./group-commit.js";
import { type Params, taskFromRow, taskToParams } from "./rows.js";
import type { Statements } from "./statements.js";

export interface StoredBoard {
  /** Oldest first. */
  tasks: BoardTask[];
  /** The next task's id (ids are never reused, even for tasks the board let go). */
  nextId: number;
}

/**
 * What one step changed: the tasks to write as they now are, the ids let go, the next id. `whole`:
 * `saved` is the whole board (after a write that failed), and what is not in it goes.
 */
export interface BoardChange {
  saved: readonly BoardTask[];
  removed: readonly number[];
  nextId: number;
  whole: boolean;
  /** The change as the feed says it, for the other daemons' feeds (a shared store's). */
  notes: readonly BoardNote[];
}

/** One change as a `task` feed entry says it: the session it is about, why, the text, who acted. */
export interface BoardNote {
  about: string | null;
  why: string;
  text: string;
  actor: { who: string; whoId: string | null };
}

/**
 * A shared store's write that found the board changed by another daemon since it was read: nothing
 * was written, and the step is to be taken again on the board as it now is.
 */
export class StaleBoard extends Error {}

export interface BoardStore {
  /**
   * Whether other daemons write it too (PostgreSQL): the board is then read again before each step,
   * and a write may throw `StaleBoard`.
   */
  readonly shared: boolean;
  load(): StoredBoard | Promise<StoredBoard>;
  /**
   * Writes the change, with `also` (its feed entries) in the same commit when the two share a
   * store (else once the change has committed); resolved once it has committed, rejected
   * (nothing written) when it could not be.
   */
  save(change: BoardChange, also: () => void): Promise<void>;
  /**
   * Whether the session `id` holds its claims, when it is another daemon's (its daemon's lease
   * runs); `null` for one of this daemon's, which the daemon judges itself.
   */
  elsewhereLive(id: string): boolean | null;
  /**
   * Whether a claimed task's claim was made under a lease that ran out (another daemon's, which
   * stopped answering): what a release for that lost lease takes, and nothing else (pg-lease.ts).
   */
  lapsed(task: BoardTask): boolean;
  /** Calls `changed` with what other daemons changed, each time they do (and at each lease renewal). */
  watch(changed: (notes: BoardNote[]) => void): void;
  close(): Promise<void>;
}

export class SqliteBoard implements BoardStore {
  readonly shared = false;

  constructor(
    private readonly sql: Statements,
    private readonly commits: GroupCommit,
  ) {}

  load(): StoredBoard {
    const tasks = (this.sql.allTasks.all() as Params[]).map(taskFromRow);
    const { value } = this.sql.lastTaskId.get() as { value: number };
    return { tasks, nextId: value + 1 };
  }

  save(change: BoardChange, also: () => void): Promise<void> {
    return this.commits.soon(() => {
      for (const t of change.saved) this.sql.putTask.run(taskToParams(t));
      for (const id of change.removed) this.sql.deleteTask.run(id);
      if (change.whole) this.sql.keepTasks.run(JSON.stringify(change.saved.map((t) => t.id)));
      this.sql.setLastTaskId.run(change.nextId - 1);
      also();
    });
  }

  elsewhereLive(): null {
    return null; // every session on this board is this daemon's
  }

  lapsed(): boolean {
    return false; // no lease: every claim here is this daemon's to judge
  }

  watch(): void {} // no one else writes it

  async close(): Promise<void> {} // roost.db is the Store's to close
}
