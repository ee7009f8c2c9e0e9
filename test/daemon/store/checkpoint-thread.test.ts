/**
 * The built store's checkpoint thread (the rest of the store's tests are the unit tier's:
 * test/unit/store/store.test.ts): the thread runs the compiled module, so this needs the build.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../server/store/store.js";
import { ROOT, until } from "../../helpers/daemon.js";
import { shellJob } from "../../helpers/shell-job.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-store-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A job as dispatch makes it, in the built store. */
function newJob(s: Store) {
  const { job, lastSeq } = s.createJob((num) => shellJob(num), null);
  job.lastSeq = lastSeq;
  return job;
}

/**
 * The built module: the checkpoint thread runs compiled code. (Named by a value, so that the
 * type-check, which runs before the build, takes its types from the source.)
 */
async function builtStore(): Promise<typeof Store> {
  const built = path.join(ROOT, "dist/server/store/store.js");
  return ((await import(built)) as typeof import("../../../server/store/store.js")).Store;
}

describe("the daemon's store", () => {
  it("checkpoints its WAL on a thread of its own", async () => {
    const BuiltStore = await builtStore();
    const own = new BuiltStore(path.join(dir, "threaded.db"), { checkpoints: "thread" });
    try {
      expect(own.db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
      const before = fs.statSync(path.join(dir, "threaded.db")).size;
      const job = newJob(own as unknown as Store);
      for (let i = 0; i < 3000; i++)
        own.addReply(job.id, { text: `reply ${i} ${"x".repeat(200)}`, mode: null });
      // The pages reach the database file only by a checkpoint: none runs on this thread.
      await until(
        "the WAL checkpointed into the file",
        () => fs.statSync(path.join(dir, "threaded.db")).size > before + 500_000,
      );
    } finally {
      own.close();
    }
  });

  it("starts its WAL over under writes that never pause: the file grows no more", async () => {
    const BuiltStore = await builtStore();
    const MOST = 2 << 20;
    const db = path.join(dir, "busy.db");
    const own = new BuiltStore(db, { checkpoints: "thread", walMostBytes: MOST });
    try {
      const job = newJob(own as unknown as Store);
      const before = fs.statSync(db).size;
      // A commit every millisecond or so (a timer's least), each ~17 KB of WAL: never a pause in
      // which the thread's checkpoint could copy what was written meanwhile. Without the daemon's
      // own checkpoints the WAL holds it all, and its file grows ~50 MB in the 3 s measured.
      let i = 0;
      const write = async (untilDone: () => boolean) => {
        while (!untilDone()) {
          own.addReply(job.id, { text: `reply ${i++} ${"x".repeat(2000)}`, mode: null });
          await new Promise((r) => setTimeout(r, 0));
        }
      };
      await write(() => fs.statSync(db).size > before); // the thread has checkpointed once
      const settled = Date.now() + 1000; // its word come, the WAL started over
      await write(() => Date.now() > settled);
      const walAt = fs.statSync(`${db}-wal`).size;
      const end = Date.now() + 3000;
      await write(() => Date.now() > end);
      expect(fs.statSync(`${db}-wal`).size - walAt).toBeLessThan(2 * MOST);
    } finally {
      own.close();
    }
  });
});
