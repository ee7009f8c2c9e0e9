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

describe("the daemon's store", () => {
  it("checkpoints its WAL on a thread of its own", async () => {
    // The built module: the checkpoint thread runs compiled code. (Named by a value, so that the
    // type-check, which runs before the build, takes its types from the source.)
    const built = path.join(ROOT, "dist/server/store/store.js");
    const { Store: BuiltStore }: typeof import("../../../server/store/store.js") = await import(built);
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
});
