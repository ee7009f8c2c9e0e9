/**
 * Opening roost.db: owner-only, WAL, its migrations run, and (for the daemon) its WAL
 * checkpoints on a thread of their own (checkpointer.ts), once the WAL has grown.
 *
 * Durability: WAL with synchronous=NORMAL, and the WAL synced off this thread before what a
 * commit answers leaves (wal-sync.ts): a write answered `saved` survives a power loss too, not
 * only a kill -9 of the daemon. Without the sync the last commits could go back, and with them
 * seqs that would be handed out again to other replies (an agent that kept the first in
 * agent.json would skip the second as done). synchronous=FULL would do the same sync on the
 * daemon's only thread, stalling every client for it.
 */
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { openOwn } from "../home.js";
import { BUILT } from "../paths.js";
import { MIGRATIONS } from "./migrations/index.js";

const CHECKPOINT_MS = 500;
/**
 * The WAL's size past which the checkpoint thread starts. Below it a checkpoint would copy little
 * and nothing needs one yet (SQLite's own default waits for 4 MB); a quiet daemon, a test's, never
 * gets there, and never pays the thread's start: a V8 isolate, node and better-sqlite3, a third
 * of a second of CPU.
 */
const THREAD_AFTER_BYTES = 1 << 20;
/**
 * The WAL's contents past which the daemon's thread finishes a checkpoint itself. The WAL starts
 * over (from its first frame, the file keeping its size) only at a write that finds every frame
 * copied; the thread's checkpoints run while writes go on, so under a load that never pauses
 * none finds that, and the WAL grows without end (to ~750 MB in 40 s of `npm run bench --
 * replies`). Finished on the daemon's thread, where no write can come between, the checkpoint
 * copies what came since the thread's last (a stall of milliseconds, at most every
 * CHECKPOINT_MS, and only under such a load), and the next write starts the WAL over.
 */
export const WAL_MOST_BYTES = 64 << 20;

export interface Opened {
  db: Database.Database;
  /** The daemon's checkpoints (`checkpoints: "thread"`), to stop at close; null otherwise. */
  checkpoints: CheckpointThread | null;
}

/**
 * `checkpoints: "thread"` (the daemon) moves WAL checkpoints off this thread; "none" (power-cut
 * tests only) has none at all, so that the WAL only grows and can be cut back to a synced size.
 */
export function openDatabase(
  file: string,
  checkpoints: "inline" | "thread" | "none" = "inline",
  walMostBytes = WAL_MOST_BYTES,
): Opened {
  // Owner-only; SQLite gives the -wal and -shm files the database file's mode. SQLite follows
  // links, so the file is first opened as roost's own (not a link, ours, no one else may write).
  const fd = openOwn(file, fs.constants.O_CREAT | fs.constants.O_WRONLY);
  try {
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  migrate(db);
  if (checkpoints === "inline") return { db, checkpoints: null };
  db.pragma("wal_autocheckpoint = 0");
  if (checkpoints === "none") return { db, checkpoints: null };
  return { db, checkpoints: new CheckpointThread(db, file, walMostBytes) };
}

/**
 * The checkpoint thread (checkpointer.ts), started once the WAL has grown past
 * THREAD_AFTER_BYTES: until then a look at the WAL's size every CHECKPOINT_MS is all it costs.
 */
export class CheckpointThread {
  private worker: Worker | null = null;
  private readonly watch: NodeJS.Timeout;

  private readonly mostFrames: number;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    walMostBytes: number,
  ) {
    this.mostFrames = Math.ceil(walMostBytes / (db.pragma("page_size", { simple: true }) as number));
    this.watch = setInterval(() => {
      if (walSize(`${file}-wal`) < THREAD_AFTER_BYTES) return;
      clearInterval(this.watch);
      this.start();
    }, CHECKPOINT_MS);
    this.watch.unref();
  }

  stop(): void {
    clearInterval(this.watch);
    this.worker?.postMessage({ stop: true });
    this.worker = null;
  }

  private start(): void {
    const worker = new Worker(BUILT.checkpointer, {
      workerData: { file: this.file, everyMs: CHECKPOINT_MS },
    });
    worker.on("message", (m: { error?: string; frames?: number }) => {
      if (m.error) console.error("roost: checkpoint:", m.error);
      // Never inside a transaction: the daemon's are synchronous, and this is an event.
      if ((m.frames ?? 0) > this.mostFrames && this.db.open) this.db.pragma("wal_checkpoint(PASSIVE)");
    });
    worker.on("error", (err) => {
      // Without its thread the store checkpoints as SQLite does by default: on this one.
      console.error("roost: the checkpoint thread failed:", err.message);
      if (this.db.open) this.db.pragma("wal_autocheckpoint = 1000");
    });
    worker.unref();
    this.worker = worker;
  }
}

function walSize(wal: string): number {
  try {
    return fs.statSync(wal).size;
  } catch {
    return 0; // not made yet: nothing written
  }
}

/** Brings the store to the newest migration; refuses one newer than this roost knows. */
function migrate(db: Database.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new Error(`roost.db is at version ${version}, newer than this roost knows (${MIGRATIONS.length})`);
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
