/**
 * The merge queue's entries in the store (core/queue/queue.ts): each a JSON record by its number.
 * Numbers come from the counters table (never reused); ended entries past the latest 100 go.
 */
import type Database from "better-sqlite3";
import type { QueueEntry } from "../../sdk/ts/protocol/index.js";
import type { GroupCommit } from "./group-commit.js";

/** An entry as kept: what the wire shows, and what a restart needs to go on without landing twice. */
export interface QueueRecord extends QueueEntry {
  /** The check's time limit. */
  timeoutMs: number;
  /** The commit that is to become `into`, recorded before the ref moves (null until checked). */
  merged: string | null;
  /** What `into` was when `merged` was made on it. */
  onto: string | null;
  /** The files its landing changed in `into` (to say, of a later conflict, who landed there first). */
  files: string[];
  /** The check's process (its group's leader), while it runs: ended at a restart if it outlived the daemon. */
  checkPid: number | null;
}

/** How many ended entries are kept. */
export const QUEUE_ENDED_KEPT = 100;

export class QueueStore {
  private readonly sql;

  constructor(
    db: Database.Database,
    private readonly commits: GroupCommit,
  ) {
    this.sql = {
      all: db.prepare("SELECT entry FROM queue ORDER BY n"),
      next: db.prepare("UPDATE counters SET value = value + 1 WHERE name = 'queue' RETURNING value"),
      put: db.prepare("INSERT OR REPLACE INTO queue (n, ended, entry) VALUES (?, ?, ?)"),
      prune: db.prepare(
        "DELETE FROM queue WHERE ended = 1 AND n NOT IN (SELECT n FROM queue WHERE ended = 1 ORDER BY n DESC LIMIT ?)",
      ),
    };
  }

  all(): QueueRecord[] {
    return (this.sql.all.all() as { entry: string }[]).map((r) => JSON.parse(r.entry) as QueueRecord);
  }

  /** New entries, their numbers taken and the records written in one transaction. */
  create(builds: ((n: number) => QueueRecord)[]): QueueRecord[] {
    return this.commits.run(() =>
      builds.map((build) => {
        const { value } = this.sql.next.get() as { value: number };
        const rec = build(value);
        this.write(rec);
        return rec;
      }),
    );
  }

  put(rec: QueueRecord, ended: boolean): void {
    this.commits.run(() => {
      this.write(rec);
      if (ended) this.sql.prune.run(QUEUE_ENDED_KEPT);
    });
  }

  private write(rec: QueueRecord): void {
    const ended = rec.state === "landed" || rec.state === "failed" || rec.state === "cancelled";
    this.sql.put.run(rec.n, ended ? 1 : 0, JSON.stringify(rec));
  }
}
