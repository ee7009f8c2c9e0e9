/**
 * Where the task board is kept (agent-protocol.md, "The task board (M47)"). The core speaks to a
 * `BoardStore`, not to SQLite: the board is the one part of roost that several daemons may one day
 * share (a fleet's), and a PostgreSQL board can then stand beside this one without the core
 * changing. This one keeps a row a task in roost.db, written in the commit a turn's writes share.
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
}

export interface BoardStore {
  load(): StoredBoard;
  /**
   * Writes the change, with `also` (its feed entries) in the same commit when the two share a
   * store; resolved once it has committed, rejected (nothing written) when it could not be.
   */
  save(change: BoardChange, also: () => void): Promise<void>;
}

export class SqliteBoard implements BoardStore {
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
}
