/**
 * The store's transactions: one commit for what must land together, one commit shared by the
 * writes of a turn (group commit), and what the store keeps in memory of them (the pending
 * replies) changed only once they have committed, so that a transaction rolled back leaves
 * nothing behind to undo. Each commit is counted for the WAL's sync (wal-sync.ts): a group's
 * writes are answered once theirs is on disk.
 */
import type Database from "better-sqlite3";
import { WalSync } from "./wal-sync.js";

interface Waiting {
  write: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class GroupCommit {
  /** Writes waiting for this turn's shared commit (see `soon`). */
  private readonly group: Waiting[] = [];
  /** What to do once the transaction under way commits (see `afterCommit`). */
  private readonly committed: (() => void)[] = [];
  /** Told of every rollback, a savepoint's too (see `onRollback`). */
  private readonly rollbacks: (() => void)[] = [];

  /** The WAL's syncs: what a commit answers waits for one (`durable`). */
  readonly wal: WalSync;

  constructor(
    private readonly db: Database.Database,
    syncLog: string | null = null,
  ) {
    this.wal = new WalSync(`${db.name}-wal`, syncLog);
  }

  /**
   * Several writes as one transaction (one commit): all land, or none. Nests (as a savepoint);
   * what a nested one asked to do after its commit is forgotten if it rolls back.
   */
  run<T>(writes: () => T): T {
    const mark = this.committed.length;
    let result: T;
    try {
      result = this.db.transaction(writes)();
    } catch (err) {
      this.committed.length = mark;
      for (const forget of this.rollbacks) forget();
      throw err;
    }
    if (!this.db.inTransaction) {
      this.wal.committed();
      for (const done of this.committed.splice(0)) afterwards(done);
    }
    return result;
  }

  /** In the transaction under way (no savepoint: it fails as a whole), else in one of its own. */
  within<T>(write: () => T): T {
    return this.db.inTransaction ? write() : this.run(write);
  }

  /**
   * `forget` after every rollback, for what is counted in memory ahead of its commit (the seqs:
   * Replies.add): it reads the store again, which holds what is still to commit, if anything.
   */
  onRollback(forget: () => void): void {
    this.rollbacks.push(forget);
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /** `done` once the transaction under way has committed; at once when none is. */
  afterCommit(done: () => void): void {
    if (this.db.inTransaction) this.committed.push(done);
    else afterwards(done);
  }

  /**
   * Group commit: a write run in the one transaction that every write asked for in this turn of
   * the event loop shares, at its end; resolved once that transaction has committed and is on
   * disk (synced: it survives a power loss). A commit's cost is most of a small write's, so the
   * replies that arrive together share one. Writes run in the order asked. Should the transaction
   * fail, each write is tried again alone, so that one bad write fails only itself.
   */
  soon<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.group.push({ write, resolve: resolve as (v: unknown) => void, reject });
      if (this.group.length === 1) setImmediate(() => this.commit());
    });
  }

  /** Commits the writes waiting now (also at close). */
  commit(): void {
    const group = this.group.splice(0);
    if (group.length === 0) return;
    let results: unknown[];
    try {
      results = this.run(() => group.map((g) => g.write()));
    } catch {
      for (const g of group) {
        try {
          const result = this.run(g.write);
          this.wal.durable().then(() => g.resolve(result), g.reject);
        } catch (err) {
          g.reject(err);
        }
      }
      return;
    }
    this.wal.durable().then(
      () => {
        for (const [i, g] of group.entries()) g.resolve(results[i]);
      },
      (err) => {
        for (const g of group) g.reject(err);
      },
    );
  }
}

/** What follows a commit never makes it look failed: `run` throws only when nothing was written. */
function afterwards(done: () => void): void {
  try {
    done();
  } catch (err) {
    console.error("roost: after a commit:", err);
  }
}
