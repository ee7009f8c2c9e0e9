/**
 * Durable commits (server/store/wal-sync.ts) on a real SQLite file: a write answered is on disk
 * first (the WAL synced, off the daemon's thread, after its commit), one sync serves many commits,
 * a commit made while one runs gets its own begun beside it, and a sync the disk refuses is an
 * error, not a `saved`. fdatasync is watched (and, once, made to fail as a disk would), never
 * replaced: the syncs are real.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Store } from "../../../server/store/store.js";
import { shellJob } from "../../helpers/shell-job.js";

let dir: string;
let store: Store;
/** Each fdatasync: the file it synced, and whether it had finished (its callback run). */
let syncs: { file: string; finished: boolean }[];
let failNext: NodeJS.ErrnoException | null;
/** While set, a sync begins only once it resolves: a sync held under way, whatever the machine's speed. */
let hold: Promise<void> | null;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-walsync-"));
  store = new Store(path.join(dir, "roost.db"));
  syncs = [];
  failNext = null;
  hold = null;
  const real = fs.fdatasync;
  vi.spyOn(fs, "fdatasync").mockImplementation(((
    fd: number,
    cb: (err: NodeJS.ErrnoException | null) => void,
  ) => {
    const sync = { file: fs.readlinkSync(`/proc/self/fd/${fd}`), finished: false };
    // Only this test's store: another file's, in the same worker, may still be syncing.
    if (!sync.file.startsWith(`${dir}/`)) return real(fd, cb);
    syncs.push(sync);
    if (failNext) {
      const err = failNext;
      failNext = null;
      setImmediate(() => cb(err));
      return;
    }
    const run = () =>
      real(fd, (err) => {
        sync.finished = true;
        cb(err);
      });
    if (hold) void hold.then(run);
    else run();
  }) as typeof fs.fdatasync);
});
afterEach(() => {
  vi.restoreAllMocks();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A job to write replies to (its own commit, synced before the test goes on). */
async function job(): Promise<string> {
  const { job } = store.createJob((num) => shellJob(num), null);
  await store.synced();
  return job.id;
}

describe("durable commits", () => {
  it("a write committed in a group is answered only once the WAL is synced", async () => {
    const id = await job();
    syncs.length = 0;
    const seq = await store.commitSoon(() => store.addReply(id, { text: "deploy", mode: null }));
    expect(seq).toBe(1);
    expect(syncs).toEqual([{ file: path.join(dir, "roost.db-wal"), finished: true }]);
  });

  it("a write of its own (createJob) is synced once asked; nothing new to sync costs no sync", async () => {
    await job();
    expect(syncs.map((s) => s.finished)).toEqual([true]);
    await store.synced();
    expect(syncs).toHaveLength(1);
  });

  it("one sync serves the commits of a turn; a commit made while one runs has its own begun beside it", async () => {
    const id = await job();
    syncs.length = 0;
    // 100 replies in one turn: one commit, one sync.
    const turn = Array.from({ length: 100 }, (_, i) =>
      store.commitSoon(() => store.addReply(id, { text: `r${i}`, mode: null })),
    );
    expect(await Promise.all(turn)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(syncs).toHaveLength(1);
    // 20 turns, each a commit, while the syncs are held under way (until the 20th): the first
    // turn's sync covers it alone, the second turn's begins at once beside it, and the other 18,
    // made while two run, share one more.
    syncs.length = 0;
    let release = () => {};
    hold = new Promise((r) => {
      release = r;
    });
    const answers: Promise<number>[] = [];
    for (let t = 0; t < 20; t++) {
      answers.push(store.commitSoon(() => store.addReply(id, { text: `t${t}`, mode: null })));
      await new Promise((r) => setImmediate(r));
    }
    expect(syncs.map((s) => s.finished)).toEqual([false, false]); // two under way, held
    hold = null;
    release();
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 20 }, (_, i) => 101 + i));
    expect(syncs).toHaveLength(3);
    // The third sync, begun after the 20th commit, answers the 18 it holds: it has finished. The
    // second may not have: a sync that ends first answers what was committed before it began,
    // and the third may end before the second (as the next test has it on purpose).
    expect(syncs[2]!.finished).toBe(true);
  });

  it("a sync that ends first answers every commit made before it began, those of a sync still under way too", async () => {
    const id = await job();
    syncs.length = 0;
    let release = () => {};
    hold = new Promise((r) => {
      release = r;
    });
    const first = store.commitSoon(() => store.addReply(id, { text: "held", mode: null }));
    await new Promise((r) => setImmediate(r));
    expect(syncs).toHaveLength(1); // its sync held under way
    hold = null;
    const second = store.commitSoon(() => store.addReply(id, { text: "beside", mode: null }));
    // The second sync, begun after both commits, ends while the first is still held: both answered.
    let answered: number[] | null = null;
    void Promise.all([first, second]).then((a) => {
      answered = a;
    });
    try {
      await vi.waitFor(() => expect(answered).toEqual([1, 2]), { timeout: 10000 });
      expect(syncs.map((s) => s.finished)).toEqual([false, true]);
    } finally {
      release();
    }
    await vi.waitFor(() => expect(syncs[0]!.finished).toBe(true));
  });

  it("a sync the disk refuses: the writes waiting are answered busy, and the next sync is tried afresh", async () => {
    const id = await job();
    failNext = Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
    const refused = store.commitSoon(() => store.addReply(id, { text: "lost?", mode: null }));
    await expect(refused).rejects.toMatchObject({
      code: "busy",
      message: expect.stringContaining("may be lost"),
    });
    // Asked again with nothing new committed, that commit is synced afresh.
    const before = syncs.length;
    await store.synced();
    expect(syncs.length).toBe(before + 1);
    // The disk is back: the next write is synced and answered.
    expect(await store.commitSoon(() => store.addReply(id, { text: "again", mode: null }))).toBe(2);
    expect(syncs.at(-1)!.finished).toBe(true);
  });
});
