/**
 * The store's WAL checkpoints, on a thread of their own. A checkpoint copies the WAL into the
 * database file and fsyncs it: on the daemon's thread that stalls every request for milliseconds
 * (the p99 of a reply), here it stalls nothing. PASSIVE: it never waits for, nor blocks, a writer.
 * After each, it tells the daemon's thread how many frames the WAL holds (open.ts: a WAL that
 * only grows is finished there).
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { file, everyMs } = workerData as { file: string; everyMs: number };
const db = new Database(file);
db.pragma("busy_timeout = 5000");

function checkpoint(): void {
  try {
    const [done] = db.pragma("wal_checkpoint(PASSIVE)") as { log: number }[];
    parentPort?.postMessage({ frames: done?.log ?? 0 });
  } catch (err) {
    parentPort?.postMessage({ error: (err as Error).message });
  }
}

// Once at once: the thread starts when the WAL has grown (open.ts).
checkpoint();
const timer = setInterval(checkpoint, everyMs);

parentPort?.on("message", (msg: { stop?: boolean }) => {
  if (!msg.stop) return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
