/**
 * Durable commits that stall nothing (docs/protocol.md, "roost's choices": Durability). SQLite runs
 * with synchronous=NORMAL: a commit writes its WAL frames into the OS's cache and returns at once,
 * and SQLite syncs only at checkpoints. What a commit answers (`saved`) must be on disk first, so
 * the WAL is synced here, with fdatasync on libuv's thread pool: the daemon goes on serving
 * everyone else meanwhile, where synchronous=FULL would hold its only thread for each sync (a few
 * milliseconds on a virtual disk). One sync covers every commit made before it began: the commits
 * of a turn share one, and so do those of the turns that come while two syncs run.
 *
 * Why it is enough: the WAL's frames carry checksums and each commit's mark; once a commit's
 * frames are synced, recovery after a power loss replays it. A checkpoint syncs the database
 * file before the WAL starts over (SQLite does so at NORMAL), so what an earlier sync made durable
 * is never only in frames overwritten later. The WAL file is the same file for as long as the
 * store is open: SQLite removes it only when its last connection closes, and this store's
 * connection is open until `close`.
 */
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { RoostError } from "../../sdk/ts/protocol/index.js";

/** A sync this slow is said in the log (one takes a few milliseconds on a virtual disk). */
const SLOW_SYNC_MS = 2000;

/**
 * A commit made while a sync runs has its own sync begun at once, beside it, rather than after it:
 * its answer waits one sync, not the rest of one and then another. fdatasync promises what was
 * written before it began, whatever else is syncing the file. Two at most, so that the thread pool
 * keeps room for the rest of the daemon's file work; a commit made while two run waits for the
 * first to end. Measured in `npm run bench -- replies` (docs/benchmarks.md, "Two syncs at once"):
 * two cut the p99 of a reply's `saved` at 1,000/s by a quarter and raised the rate as much; with
 * three the p99 was one's again.
 */
const MOST_SYNCS_AT_ONCE = 2;

interface Waiter {
  upTo: number;
  done: () => void;
  failed: (err: unknown) => void;
}

export class WalSync {
  private fd: number | null = null;
  /** Commits made, and of those the ones known to be on disk. */
  private made = 0;
  private synced = 0;
  /** Syncs under way, and the last commit the newest of them covers. */
  private running = 0;
  private begunUpTo = 0;
  /** The largest WAL size in the sync log (see `syncLog`): syncs may end out of order. */
  private loggedSize = 0;
  private waiting: Waiter[] = [];

  constructor(
    private readonly walFile: string,
    /**
     * For power-cut tests only (`ROOST_TEST_SYNC_LOG`, with checkpoints off so the WAL only
     * grows): each sync appends the WAL's size when it began, all that sync promised. Cutting
     * the WAL back to the last size logged is a power loss that kept nothing unsynced.
     */
    private readonly syncLog: string | null = null,
  ) {}

  /** A transaction committed (its frames are in the WAL, not yet known on disk). */
  committed(): void {
    this.made++;
  }

  /** Resolves once every commit made so far is on disk. */
  durable(): Promise<void> {
    const upTo = this.made;
    if (upTo <= this.synced) return Promise.resolve();
    return new Promise((done, failed) => {
      this.waiting.push({ upTo, done, failed });
      this.next();
    });
  }

  /** At close: what is waiting is synced here, on this thread, and answered. */
  close(): void {
    if (this.fd === null) return;
    try {
      const size = this.syncLog ? fs.fstatSync(this.fd).size : 0;
      if (this.made > this.synced) fs.fdatasyncSync(this.fd);
      this.synced = this.made;
      this.logSynced(size);
      this.settle(null);
    } catch (err) {
      this.settle(err);
    }
    fs.closeSync(this.fd);
    this.fd = null;
  }

  private next(): void {
    // The waiters are in the order of their commits: the last one asks the most.
    const wanted = this.waiting.at(-1)?.upTo ?? 0;
    if (this.running >= MOST_SYNCS_AT_ONCE || wanted <= this.begunUpTo) return;
    let fd: number;
    try {
      fd = this.fd ??= fs.openSync(this.walFile, fs.constants.O_RDWR);
    } catch (err) {
      this.settle(err);
      return;
    }
    this.running++;
    const upTo = this.made;
    this.begunUpTo = upTo;
    // Taken with `upTo`: every commit counted in it ends within this size.
    const size = this.syncLog ? fs.fstatSync(fd).size : 0;
    const began = performance.now();
    fs.fdatasync(fd, (err) => {
      this.running--;
      const took = performance.now() - began;
      // Every answer `saved` waited this long: worth a line when the disk is that slow.
      if (took >= SLOW_SYNC_MS)
        console.warn(`roost: the disk took ${Math.round(took)} ms to confirm the store's writes`);
      if (!err) {
        this.synced = Math.max(this.synced, upTo);
        this.logSynced(size);
      } else this.begunUpTo = this.synced; // what it was to cover is to be synced afresh
      this.settle(err, this.synced);
      this.next();
    });
  }

  private logSynced(size: number): void {
    if (!this.syncLog || size < this.loggedSize) return;
    this.loggedSize = size;
    fs.appendFileSync(this.syncLog, `${size}\n`);
  }

  /** Answers the waiters a sync covered (all of them, on a failure: none can be promised). */
  private settle(err: unknown, upTo = Number.POSITIVE_INFINITY): void {
    const covered = err ? this.waiting : this.waiting.filter((w) => w.upTo <= upTo);
    this.waiting = err ? [] : this.waiting.filter((w) => w.upTo > upTo);
    for (const w of covered) {
      if (!err) w.done();
      else
        w.failed(
          new RoostError(
            "busy",
            `the disk did not confirm the write (${(err as Error).message}): it may be lost; send it again with the same requestId`,
          ),
        );
    }
  }
}
