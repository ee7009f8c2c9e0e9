/**
 * Opening roost.db: owner-only, WAL, its migrations run, and (for the daemon) its WAL
 * checkpoints on a thread of their own (checkpointer.ts).
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
import { MIGRATIONS } from "./migrations/index.js";

const CHECKPOINT_MS = 500;

export interface Opened {
  db: Database.Database;
  /** Settled once the store has all it needs running (its checkpoint thread). */
  ready: Promise<void>;
  /** The checkpoint thread, when there is one. */
  checkpointer: Worker | null;
}

/**
 * `checkpoints: "thread"` (the daemon) moves WAL checkpoints off this thread; "none" (power-cut
 * tests only) has none at all, so that the WAL only grows and can be cut back to a synced size.
 */
export function openDatabase(file: string, checkpoints: "inline" | "thread" | "none" = "inline"): Opened {
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
  if (checkpoints === "inline") return { db, ready: Promise.resolve(), checkpointer: null };
  db.pragma("wal_autocheckpoint = 0");
  if (checkpoints === "none") return { db, ready: Promise.resolve(), checkpointer: null };
  const worker = new Worker(new URL("./checkpointer.js", import.meta.url), {
    workerData: { file, everyMs: CHECKPOINT_MS },
  });
  const ready = new Promise<void>((resolve) => {
    worker.on("message", (m: { error?: string; ready?: boolean }) => {
      if (m.ready) resolve();
      if (m.error) console.error("roost: checkpoint:", m.error);
    });
    worker.on("error", (err) => {
      // Without its thread the store checkpoints as SQLite does by default: on this one.
      console.error("roost: the checkpoint thread failed:", err.message);
      if (db.open) db.pragma("wal_autocheckpoint = 1000");
      resolve();
    });
  });
  worker.unref();
  return { db, ready, checkpointer: worker };
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
