/** The store on a real SQLite file: numbering, durability across reopen, the kept windows. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EMPTY_REPORT } from "../../../server/core/jobs/registry.js";
import { loadJobs } from "../../../server/core/jobs/stored-jobs.js";
import { MIGRATIONS } from "../../../server/store/migrations/index.js";
import type { JobRecord } from "../../../server/store/records.js";
import { Store } from "../../../server/store/store.js";
import { shellJob } from "../../helpers/shell-job.js";

let dir: string;
let file: string;
let store: Store;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-store-"));
  file = path.join(dir, "roost.db");
  store = new Store(file);
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const reopen = () => {
  store.close();
  store = new Store(file);
};

/** A job as dispatch makes it: its last seq set once the store has created it. */
function newJob(s: Store, requestId: string | null = null, task: string | null = null): JobRecord {
  const { job, lastSeq } = s.createJob(
    (num) => shellJob(num, requestId),
    task ? { text: task, mode: null } : null,
  );
  job.lastSeq = lastSeq;
  return job;
}

describe("the store", () => {
  it("is WAL, at the newest migration, and refuses a store newer than it knows", () => {
    // NORMAL (1): SQLite does not sync at each commit on the daemon's thread; the WAL is synced
    // off it before an answer leaves (test/unit/store/wal-sync.test.ts).
    expect(store.db.pragma("synchronous", { simple: true })).toBe(1);
    const db = new Database(file, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    db.close();
    store.close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => new Store(file)).toThrow(/newer than this roost knows/);
    store = new Store(path.join(dir, "other.db"));
  });

  it("moves a store at version 4's request ids onto their replies (migration 5)", () => {
    store.close();
    fs.rmSync(file);
    // A store as roost left it at version 4: ids in their own table, a typed reply's id both on its
    // row and there, a /stop's (seq 0) there alone.
    const old = new Database(file);
    for (const m of MIGRATIONS.slice(0, 4)) old.exec(m);
    old.pragma("user_version = 4");
    old.exec(`INSERT INTO jobs (id, token, profile, launch, default_name, life, kind, last_seq, created_at, updated_at,
        pinned, ord, capabilities)
      VALUES ('j1', 't', 'shell', '{}', 'shell', 'running', 'terminal', 3, 'x', 'x', 0, 0, '[]')`);
    old.exec(`INSERT INTO replies (job_id, seq, text, at, acked, request_id) VALUES
      ('j1', 1, 'one', 'x', 1, NULL), ('j1', 2, 'two', 'x', 1, 'typed'), ('j1', 3, 'three', 'x', 0, NULL)`);
    old.exec(`INSERT INTO reply_request_ids (job_id, request_id, seq, n) VALUES
      ('j1', 'first', 1, 1), ('j1', 'typed', 2, 2), ('j1', 'halt', 0, 3), ('j1', 'third', 3, 4)`);
    // The feed's oldest pruned: it holds cursors 5 and 6.
    old.exec(`INSERT INTO events (cursor, at, job_id, kind, text, who) VALUES
      (5, 'x', 'j1', 'reply', 'five', 'user'), (6, 'x', 'j1', 'reply', 'six', 'user')`);
    old.close();
    store = new Store(file);
    expect([1, 2, 3].map((seq) => store.pendingReplies("j1").find((r) => r.seq === seq)?.requestId)).toEqual([
      undefined,
      undefined,
      "third",
    ]);
    expect(["first", "typed", "third", "halt"].map((id) => store.replyForRequest("j1", id))).toEqual([
      1,
      2,
      3,
      null,
    ]);
    const db = new Database(file, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE '%request%'").all();
    db.close();
    expect(tables.map((t: any) => t.name).sort()).toEqual(["replies_request"]);
    // The feed kept, its cursors going on from the newest.
    expect(store.events({ limit: 10 }).map((e) => [e.cursor, e.text])).toEqual([
      [5, "five"],
      [6, "six"],
    ]);
    expect(store.addEvent({ id: "j1", kind: "reply", text: "seven", who: "user", whoId: null }).cursor).toBe(
      7,
    );
  });

  it("never reuses a job id, after rm and after reopening", () => {
    const a = newJob(store);
    const b = newJob(store);
    store.deleteJob(b.id);
    reopen();
    const c = newJob(store);
    expect([a.id, b.id, c.id]).toEqual(["j1", "j2", "j3"]);
    expect(store.loadJobs().map((j) => j.id)).toEqual(["j1", "j3"]);
  });

  it("a failed flush loses no other job's report: the one write that cannot be made fails alone", () => {
    const [a, b, c] = [newJob(store), newJob(store), newJob(store)];
    const report = (summary: string) => ({ ...EMPTY_REPORT, summary });
    a.report = report("a saved");
    c.report = report("c saved");
    // A value JSON cannot say (a BigInt): the write of b fails, whatever the others'.
    b.report = { ...report("b"), usage: { n: 1n } } as unknown as JobRecord["report"];
    const failed = store.updateJobs([a, b, c]);
    expect(failed.map((f) => f.job.id)).toEqual([b.id]);
    expect(String(failed[0]!.error)).toMatch(/BigInt/);
    reopen();
    const kept = Object.fromEntries(loadJobs(store).jobs.map((j) => [j.id, j.report?.summary ?? null]));
    expect(kept).toEqual({ [a.id]: "a saved", [b.id]: null, [c.id]: "c saved" });
  });

  it("numbers replies per job from 1, the first task included, continuing after a reopen", () => {
    const a = newJob(store, null, "the task");
    const b = newJob(store);
    expect(a.lastSeq).toBe(1);
    expect(store.addReply(a.id, { text: "two", mode: "steer" })).toBe(2);
    expect(store.addReply(b.id, { text: "one", mode: null })).toBe(1);
    reopen();
    const [a2] = loadJobs(store).jobs.filter((j) => j.id === a.id);
    expect(a2!.lastSeq).toBe(2);
    expect(store.addReply(a2!.id, { text: "three", mode: null })).toBe(3);
    expect(store.pendingReplies(a.id).map((r) => [r.seq, r.text, r.mode])).toEqual([
      [1, "the task", null],
      [2, "two", "steer"],
      [3, "three", null],
    ]);
  });

  it("counts seqs from the replies, never from a job's row behind them, and never back", () => {
    const job = newJob(store, null, "the task");
    store.addReply(job.id, { text: "two", mode: null });
    store.addReply(job.id, { text: "three", mode: null });
    store.updateJob(job); // the row written with the record's seq, 1: behind the replies
    reopen();
    expect(store.loadJobs().find((j) => j.id === job.id)!.lastSeq).toBe(3);
    expect(store.addReply(job.id, { text: "four", mode: null })).toBe(4);
    // A row ahead of its replies (an older store, whose rows kept the seq): the row's counts.
    store.close();
    const raw = new Database(file);
    raw.prepare("UPDATE jobs SET last_seq = 9 WHERE id = ?").run(job.id);
    raw.close();
    store = new Store(file);
    expect(store.loadJobs().find((j) => j.id === job.id)!.lastSeq).toBe(9);
    expect(store.addReply(job.id, { text: "ten", mode: null })).toBe(10);
    expect(() => store.addReply("j999", { text: "nobody", mode: null })).toThrow(/no job j999 in the store/);
  });

  it("acks cumulatively over the user's replies, and one peer item exactly", () => {
    const job = newJob(store);
    store.addReply(job.id, { text: "u1", mode: null });
    store.addReply(job.id, { text: "peer", mode: null, kind: "message" });
    store.addReply(job.id, { text: "u3", mode: null });
    expect(store.ack(job.id, 3, false)).toBe(2); // u1 and u3; the peer item waits for its own ack
    expect(store.pendingReplies(job.id).map((r) => r.seq)).toEqual([2]);
    expect(store.ack(job.id, 2, true)).toBe(1);
    expect(store.ack(job.id, 3, false)).toBe(0); // taken already
    // Acks are written together, a moment later (or at close): a crash before only resends.
    expect(store.pendingCounts().get(job.id)).toBe(3);
    store.flushAcks();
    expect(store.pendingCounts().get(job.id)).toBeUndefined();
    store.addReply(job.id, { text: "u4", mode: null });
    expect(store.ack(job.id, 4, false)).toBe(1);
    reopen(); // close writes what is left
    expect(store.pendingCounts().get(job.id)).toBeUndefined();
    expect(store.pendingReplies(job.id)).toEqual([]);
  });

  it("reads several jobs' pending replies in one go, as each job's own read would, and keeps them in step", () => {
    const [a, b, c] = [newJob(store), newJob(store), newJob(store)];
    store.addReply(a.id, { text: "a1", mode: null });
    store.addReply(b.id, { text: "b1", mode: null });
    store.addReply(a.id, { text: "a2", mode: null, kind: "message" });
    store.addReply(b.id, { text: "b2", mode: null });
    store.ack(b.id, 1, false);
    store.flushAcks();
    reopen(); // nothing read yet: what each job has waiting is the file's
    store.readPending([a.id, b.id, c.id]);
    const texts = (id: string) => store.pendingReplies(id).map((r) => r.text);
    expect([texts(a.id), texts(b.id), texts(c.id)]).toEqual([["a1", "a2"], ["b2"], []]);
    // Kept in step with what comes next, as a list read alone is.
    store.addReply(c.id, { text: "c1", mode: null });
    expect(store.ack(a.id, 2, true)).toBe(1);
    expect([texts(a.id), texts(c.id)]).toEqual([["a1"], ["c1"]]);
    reopen();
    store.readPending([a.id, c.id]);
    expect([texts(a.id), texts(c.id)]).toEqual([["a1"], ["c1"]]);
  });

  it("keeps a job's last 100 reply request ids, written with the reply", () => {
    const job = newJob(store);
    for (let i = 0; i < 101; i++) store.addReply(job.id, { text: `r${i}`, mode: null, requestId: `id-${i}` });
    // Taken by the agent (a reply still waiting is remembered however old: the test below).
    expect(store.ack(job.id, 101, false)).toBe(101);
    expect(store.replyForRequest(job.id, "id-0")).toBeNull();
    expect(store.replyForRequest(job.id, "id-1")).toBe(2);
    expect(store.replyForRequest(job.id, "id-100")).toBe(101);
    // A `/stop` is saved handled (taken at once): its id counts among the 100, and finds it.
    store.addReply(job.id, { text: "/stop", mode: null, requestId: "stop-1" }, true);
    expect(store.replyForRequest(job.id, "stop-1")).toBe(102);
    expect(store.pendingReplies(job.id).map((r) => r.seq)).not.toContain(102);
    expect(store.replyForRequest(job.id, "id-1")).toBeNull();
    expect(store.replyForRequest(job.id, "id-2")).toBe(3);
    reopen();
    expect(store.replyForRequest(job.id, "id-100")).toBe(101);
  });

  it("remembers a request id older than the last 100 while its reply still waits", () => {
    const job = newJob(store);
    // A terminal agent's follow-up waits while 100 steers after it are typed (each taken alone).
    store.addReply(job.id, { text: "later", mode: "followUp", requestId: "waiting" });
    for (let i = 0; i < 100; i++) {
      const seq = store.addReply(job.id, { text: `s${i}`, mode: "steer", requestId: `steer-${i}` });
      store.markTyped(job.id, seq);
    }
    expect(store.replyForRequest(job.id, "waiting")).toBe(1);
    store.markTyped(job.id, 1);
    expect(store.replyForRequest(job.id, "waiting")).toBeNull();
    expect(store.replyForRequest(job.id, "steer-0")).toBe(2);
  });

  it("finds a job by its dispatch request id until the job is removed", () => {
    const job = newJob(store, "dispatch-1");
    expect(store.jobForDispatchRequest("dispatch-1")).toBe(job.id);
    store.deleteJob(job.id);
    expect(store.jobForDispatchRequest("dispatch-1")).toBeNull();
  });

  it("keeps the last 1000 feed entries, with a cursor to read after", () => {
    for (let i = 1; i <= 1250; i++)
      store.addEvent({ id: `j${i % 3}`, kind: "reply", text: `e${i}`, who: "user", whoId: null });
    expect(store.lastCursor()).toBe(1250);
    const newest = store.events({ limit: 5 });
    expect(newest.map((e) => e.text)).toEqual(["e1246", "e1247", "e1248", "e1249", "e1250"]);
    const fromStart = store.events({ after: 0, limit: 1000 });
    expect(fromStart).toHaveLength(1000);
    expect(fromStart[0]!.cursor).toBe(251);
    expect(store.events({ after: 1240, limit: 3 }).map((e) => e.cursor)).toEqual([1241, 1242, 1243]);
    // e1243, e1246 and e1249 are j1's (i % 3 === 1) after cursor 1240.
    expect(store.events({ after: 1240, limit: 100, id: "j1" }).map((e) => [e.cursor, e.id, e.text])).toEqual([
      [1243, "j1", "e1243"],
      [1246, "j1", "e1246"],
      [1249, "j1", "e1249"],
    ]);
    const count = (store.db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n;
    // Pruned in steps of 100: at cursor 1200 everything up to 200 went; 1050 are left.
    expect(count).toBe(1050);
  });
});

describe("group commit", () => {
  it("commits the writes of one turn together, in order, each answered after the commit", async () => {
    const job = newJob(store);
    const seqs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.commitSoon(() => store.addReply(job.id, { text: `r${i}`, mode: null })),
      ),
    );
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(store.pendingReplies(job.id).map((r) => r.text)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    reopen();
    expect(store.pendingReplies(job.id)).toHaveLength(5);
  });

  it("fails only the write that fails, and leaves no gap in the seqs", async () => {
    const job = newJob(store);
    const results = await Promise.allSettled([
      store.commitSoon(() => store.addReply(job.id, { text: "a", mode: null })),
      store.commitSoon(() => {
        store.addReply(job.id, { text: "doomed", mode: null });
        throw new Error("this write fails");
      }),
      store.commitSoon(() => store.addReply(job.id, { text: "c", mode: null })),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : null))).toEqual([1, null, 2]);
    // The store's own count: the seq the failed write took was rolled back with it.
    expect(store.loadJobs().find((j) => j.id === job.id)!.lastSeq).toBe(2);
    expect(job.lastSeq).toBe(0); // the record is the caller's to set, once committed
    expect(store.pendingReplies(job.id).map((r) => [r.seq, r.text])).toEqual([
      [1, "a"],
      [2, "c"],
    ]);
    expect(store.addReply(job.id, { text: "d", mode: null })).toBe(3);
  });

  it("keeps nothing in memory of a write rolled back, even what was read inside it", async () => {
    const job = newJob(store);
    const inside: number[][] = [];
    const failed = store.commitSoon(() => {
      store.addReply(job.id, { text: "rolled back", mode: null });
      inside.push(store.pendingReplies(job.id).map((r) => r.seq));
      throw new Error("this write fails");
    });
    await expect(failed).rejects.toThrow(/this write fails/);
    expect(inside).toEqual([[1], [1]]); // in the group, then alone: each saw its own write
    expect(store.pendingReplies(job.id)).toEqual([]);
    expect(store.pendingCounts().get(job.id)).toBeUndefined();
    expect(await store.commitSoon(() => store.addReply(job.id, { text: "kept", mode: null }))).toBe(1);
    expect(store.pendingReplies(job.id).map((r) => [r.seq, r.text])).toEqual([[1, "kept"]]);
  });
});
