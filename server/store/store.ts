/**
 * The store: the one module with SQL (control-plane.md, "Where things live": roost.db, SQLite in
 * WAL mode). Statements are prepared once; writes that must land together are one transaction.
 *
 * Durability: WAL with synchronous=NORMAL. A committed transaction survives a kill -9 of the
 * daemon (the WAL is in the OS's page cache, written before the commit returns); only a power
 * loss can take the last few back, which the promises do not cover.
 */
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import type { FeedEntry } from "../../sdk/ts/protocol/index.js";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { openOwn } from "../home.js";
import { MIGRATIONS } from "./migrations/index.js";
import {
  type JobRecord,
  type NewFeedEntry,
  type NewReply,
  type ReplyRecord,
  type StoredJob,
  type TokenRecord,
  Unreadable,
} from "./records.js";

type Params = Record<string, unknown>;

const ACK_FLUSH_MS = 50;
const CHECKPOINT_MS = 500;

export class Store {
  readonly db: Database.Database;
  private readonly sql: ReturnType<typeof prepare>;
  /** Each job's replies not yet taken, once read (see `pendingOf`). */
  private readonly pending = new Map<string, ReplyRecord[]>();
  /** Acks taken but not yet written (see `ack`). */
  private readonly acks: { jobId: string; seq: number; exact: boolean }[] = [];
  private ackTimer: NodeJS.Timeout | null = null;
  /** Writes waiting for this turn's shared commit (see `commitSoon`). */
  private readonly group: {
    write: () => unknown;
    resolve: (v: unknown) => void;
    reject: (e: unknown) => void;
  }[] = [];
  /** While a group commits: each job whose seq it took, and the seq before. */
  private touched: Map<JobRecord, number> | null = null;

  private checkpointer: Worker | null = null;
  /** Settled once the store has all it needs running (its checkpoint thread). */
  ready: Promise<void> = Promise.resolve();

  /** `checkpoints: "thread"` (the daemon) moves WAL checkpoints off this thread (checkpointer.ts). */
  constructor(file: string, opts: { checkpoints?: "inline" | "thread" } = {}) {
    // Owner-only; SQLite gives the -wal and -shm files the database file's mode. SQLite follows
    // links, so the file is first opened as roost's own (not a link, ours, no one else may write).
    const fd = openOwn(file, fs.constants.O_CREAT | fs.constants.O_WRONLY);
    try {
      fs.fchmodSync(fd, 0o600);
    } finally {
      fs.closeSync(fd);
    }
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("foreign_keys = ON");
    migrate(this.db);
    if (opts.checkpoints === "thread") {
      this.db.pragma("wal_autocheckpoint = 0");
      const worker = new Worker(new URL("./checkpointer.js", import.meta.url), {
        workerData: { file, everyMs: CHECKPOINT_MS },
      });
      this.ready = new Promise((resolve) => {
        worker.on("message", (m: { error?: string; ready?: boolean }) => {
          if (m.ready) resolve();
          if (m.error) console.error("roost: checkpoint:", m.error);
        });
        worker.on("error", (err) => {
          // Without its thread the store checkpoints as SQLite does by default: on this one.
          console.error("roost: the checkpoint thread failed:", err.message);
          if (this.db.open) this.db.pragma("wal_autocheckpoint = 1000");
          resolve();
        });
      });
      worker.unref();
      this.checkpointer = worker;
    }
    this.sql = prepare(this.db);
  }

  close(): void {
    if (this.group.length > 0) this.commitGroup();
    this.flushAcks();
    this.checkpointer?.postMessage({ stop: true });
    this.checkpointer = null;
    if (this.db.open) this.db.close();
  }

  /** Several writes as one transaction (one commit): all land, or none. Nests. */
  batch<T>(writes: () => T): T {
    return this.db.transaction(writes)();
  }

  /**
   * Group commit: a write run in the one transaction that every write asked for in this turn of
   * the event loop shares, at its end; resolved once that transaction has committed. A commit's
   * cost is most of a small write's, so the replies that arrive together share one. Writes run in
   * the order asked. Should the transaction fail, each write is tried again alone, so that one
   * bad write fails only itself.
   */
  commitSoon<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.group.push({ write, resolve: resolve as (v: unknown) => void, reject });
      if (this.group.length === 1) setImmediate(() => this.commitGroup());
    });
  }

  private commitGroup(): void {
    const group = this.group.splice(0);
    this.touched = new Map();
    let results: unknown[];
    try {
      results = this.db.transaction(() => group.map((g) => g.write()))();
    } catch {
      this.undoTouched();
      for (const g of group) {
        this.touched = new Map();
        try {
          g.resolve(this.db.transaction(g.write)());
        } catch (err) {
          this.undoTouched();
          g.reject(err);
        }
      }
      this.touched = null;
      return;
    }
    this.touched = null;
    for (const [i, g] of group.entries()) g.resolve(results[i]);
  }

  /** A transaction rolled back: the seqs it had taken are free again, the pending lists re-read. */
  private undoTouched(): void {
    for (const [job, lastSeq] of this.touched ?? []) {
      job.lastSeq = lastSeq;
      this.pending.delete(job.id);
    }
    this.touched = null;
  }

  // ---- jobs ----

  /** Every job, as kept: what its agent sent is checked by the core (core/stored-jobs.ts). */
  loadJobs(): StoredJob[] {
    return (this.sql.allJobs.all() as Params[]).map(jobFromRow);
  }

  /**
   * Creates a job: its number (ids are never reused, even after `rm`: the counter only grows),
   * the record, its first reply (a `type` task) and its dispatch request id, in one transaction.
   */
  createJob(build: (num: number) => JobRecord, firstReply: NewReply | null): JobRecord {
    return this.db.transaction(() => {
      const { value } = this.sql.nextJobNumber.get() as { value: number };
      const job = build(value);
      this.sql.insertJob.run(jobToParams(job));
      if (firstReply) this.insertReply(job, firstReply);
      return job;
    })();
  }

  updateJob(job: JobRecord): void {
    this.sql.updateJob.run(jobToParams(job));
  }

  /**
   * Many job writes in one transaction (coalesced report writes). Should it fail, each is tried
   * alone, so that one job's write that cannot be made loses no other's. Returns those that failed.
   */
  updateJobs(jobs: JobRecord[]): { job: JobRecord; error: unknown }[] {
    try {
      this.db.transaction(() => {
        for (const job of jobs) this.sql.updateJob.run(jobToParams(job));
      })();
      return [];
    } catch {
      const failed: { job: JobRecord; error: unknown }[] = [];
      for (const job of jobs) {
        try {
          this.sql.updateJob.run(jobToParams(job));
        } catch (error) {
          failed.push({ job, error });
        }
      }
      return failed;
    }
  }

  deleteJob(id: string): void {
    this.flushAcks();
    this.pending.delete(id);
    this.sql.deleteJob.run(id);
  }

  jobForDispatchRequest(requestId: string): string | null {
    const row = this.sql.jobForDispatchRequest.get(requestId) as { id: string } | undefined;
    return row?.id ?? null;
  }

  // ---- replies ----

  /**
   * Saves a reply: the job's next seq, the reply and its request id, in one transaction, so a
   * reply answered `saved` is on disk with its id (agent-protocol.md, "Request ids"). With
   * `keepIdNow` false (a terminal agent) the id rides on the reply and is kept by `markTyped`.
   * Updates `job.lastSeq`. Returns the seq.
   */
  addReply(job: JobRecord, reply: NewReply, keepIdNow = true): number {
    // Within a group commit it is in a transaction already: a nested one would only add a savepoint.
    if (this.touched) return this.insertReply(job, reply, keepIdNow);
    return this.db.transaction(() => this.insertReply(job, reply, keepIdNow))();
  }

  /** A terminal agent's reply was typed: taken, and its request id kept, in one write. */
  markTyped(jobId: string, seq: number, requestId: string | null): void {
    this.db.transaction(() => {
      this.sql.ackExact.run(jobId, seq);
      if (requestId) this.insertRequestId(jobId, requestId, seq);
    })();
    this.pending.set(
      jobId,
      this.pendingOf(jobId).filter((r) => r.seq !== seq),
    );
  }

  /** Saves a request id that made no reply (a `/stop`), so its resend is a duplicate too. */
  rememberRequestId(jobId: string, requestId: string): void {
    this.db.transaction(() => this.insertRequestId(jobId, requestId, 0))();
  }

  private insertReply(job: JobRecord, reply: NewReply, keepIdNow = true): number {
    if (this.touched && !this.touched.has(job)) this.touched.set(job, job.lastSeq);
    const seq = job.lastSeq + 1;
    const at = new Date().toISOString();
    this.sql.insertReply.run({
      job_id: job.id,
      seq,
      text: reply.text,
      mode: reply.mode,
      kind: reply.kind ?? null,
      request_id: keepIdNow ? null : (reply.requestId ?? null), // else kept below, at once
      at,
    });
    this.sql.setLastSeq.run({ id: job.id, last_seq: seq, updated_at: at });
    this.pending.get(job.id)?.push({
      jobId: job.id,
      seq,
      text: reply.text,
      mode: reply.mode,
      kind: reply.kind ?? null,
      requestId: keepIdNow ? null : (reply.requestId ?? null),
      at,
    });
    if (reply.requestId && keepIdNow) this.insertRequestId(job.id, reply.requestId, seq);
    job.lastSeq = seq;
    return seq;
  }

  /** Keeps a request id, and only the job's last 100. */
  private insertRequestId(jobId: string, requestId: string, seq: number): void {
    this.sql.insertRequestId.run({ job_id: jobId, request_id: requestId, seq });
    this.sql.pruneRequestIds.run({ job_id: jobId, keep: LIMITS.requestIdsKept });
  }

  /**
   * The seq a request id saved (0 for a `/stop`), or null when the job has not seen it: among
   * the kept ids, or on a reply not yet taken (a terminal agent's, before it is typed).
   */
  replyForRequest(jobId: string, requestId: string): number | null {
    const row = (this.sql.replyForRequest.get(jobId, requestId) ??
      this.sql.pendingForRequest.get(jobId, requestId)) as { seq: number } | undefined;
    return row ? row.seq : null;
  }

  /** The job's replies not yet taken, oldest first. */
  pendingReplies(jobId: string): ReplyRecord[] {
    return [...this.pendingOf(jobId)];
  }

  /** Known once read: then kept in step with each reply and ack (at most 50 user replies a job). */
  private pendingOf(jobId: string): ReplyRecord[] {
    let list = this.pending.get(jobId);
    if (!list) {
      list = (this.sql.pendingReplies.all(jobId) as Params[]).map(replyFromRow);
      this.pending.set(jobId, list);
    }
    return list;
  }

  /** The number of replies waiting per job, for every job that has some. */
  pendingCounts(): Map<string, number> {
    const rows = this.sql.pendingCounts.all() as { job_id: string; n: number }[];
    return new Map(rows.map((r) => [r.job_id, r.n]));
  }

  /**
   * An ack: cumulative over the user's replies up to `seq`, or one exact item. Returns how many
   * it took. Written with the other acks of the next 50 ms, in one commit: an ack lost to a crash
   * only sends its replies again, and the agent's client skips what it had finished (its
   * agent.json), so an ack need not cost a commit of its own.
   */
  ack(jobId: string, seq: number, exact: boolean): number {
    const list = this.pendingOf(jobId);
    const taken = (r: ReplyRecord) => (exact ? r.seq === seq : r.seq <= seq && r.kind === null);
    const left = list.filter((r) => !taken(r));
    const count = list.length - left.length;
    if (count === 0) return 0;
    this.pending.set(jobId, left);
    this.acks.push({ jobId, seq, exact });
    this.ackTimer ??= setTimeout(() => this.flushAcks(), ACK_FLUSH_MS);
    return count;
  }

  /** Writes the acks taken since the last time (also at close). */
  flushAcks(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    if (this.acks.length === 0 || !this.db.open) return;
    const acks = this.acks.splice(0);
    this.db.transaction(() => {
      for (const a of acks) (a.exact ? this.sql.ackExact : this.sql.ackUpTo).run(a.jobId, a.seq);
    })();
  }

  // ---- the events feed ----

  addEvent(entry: NewFeedEntry): FeedEntry {
    const at = new Date().toISOString();
    const { cursor } = this.sql.insertEvent.get({
      at,
      job_id: entry.id,
      kind: entry.kind,
      text: entry.text,
      who: entry.who,
      who_id: entry.whoId,
    }) as { cursor: number };
    // Keep the last 1000: pruned in steps so that each insert stays one cheap statement.
    if (cursor % 100 === 0) this.sql.pruneEvents.run(cursor - LIMITS.feedKept);
    return { cursor, at, ...entry };
  }

  /** After a cursor: the oldest first; without one: the newest `limit` (still oldest first). */
  events(q: { after?: number; limit: number; id?: string }): FeedEntry[] {
    const floor = this.lastCursor() - LIMITS.feedKept;
    const id = q.id ?? null;
    const rows =
      q.after !== undefined
        ? (this.sql.eventsAfter.all({ after: Math.max(q.after, floor), id, limit: q.limit }) as Params[])
        : (this.sql.eventsNewest.all({ floor, id, limit: q.limit }) as Params[]).reverse();
    return rows.map(eventFromRow);
  }

  lastCursor(): number {
    return (this.sql.lastCursor.get() as { c: number | null }).c ?? 0;
  }

  // ---- named HTTP tokens ----

  tokens(): TokenRecord[] {
    return (this.sql.allTokens.all() as Params[]).map((r) => ({
      name: r.name as string,
      hash: r.hash as string,
      readOnly: r.read_only === 1,
      createdAt: r.created_at as string,
    }));
  }

  /** False when the name is taken. */
  addToken(t: TokenRecord): boolean {
    return (
      this.sql.insertToken.run({
        name: t.name,
        hash: t.hash,
        read_only: t.readOnly ? 1 : 0,
        created_at: t.createdAt,
      }).changes === 1
    );
  }

  removeToken(name: string): boolean {
    return this.sql.deleteToken.run(name).changes === 1;
  }
}

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

const JOB_COLUMNS = `id, token, profile, launch, user_name, default_name, role, parent, pinned, ord, life,
  exit_code, pid, kind, agent, capabilities, report, last_seq, dispatch_request_id, created_at,
  started_at, ended_at, updated_at`;

function prepare(db: Database.Database) {
  const columns = JOB_COLUMNS.split(",").map((c) => c.trim());
  return {
    allJobs: db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs`),
    nextJobNumber: db.prepare("UPDATE counters SET value = value + 1 WHERE name = 'job' RETURNING value"),
    insertJob: db.prepare(
      `INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`,
    ),
    updateJob: db.prepare(
      `UPDATE jobs SET ${columns
        .filter((c) => c !== "id" && c !== "last_seq")
        .map((c) => `${c} = @${c}`)
        .join(", ")} WHERE id = @id`,
    ),
    deleteJob: db.prepare("DELETE FROM jobs WHERE id = ?"),
    jobForDispatchRequest: db.prepare("SELECT id FROM jobs WHERE dispatch_request_id = ?"),
    setLastSeq: db.prepare("UPDATE jobs SET last_seq = @last_seq, updated_at = @updated_at WHERE id = @id"),
    insertReply: db.prepare(
      `INSERT INTO replies (job_id, seq, text, mode, kind, request_id, at)
       VALUES (@job_id, @seq, @text, @mode, @kind, @request_id, @at)`,
    ),
    insertRequestId: db.prepare(
      `INSERT INTO reply_request_ids (job_id, request_id, seq, n)
       VALUES (@job_id, @request_id, @seq,
         (SELECT coalesce(max(n), 0) + 1 FROM reply_request_ids WHERE job_id = @job_id))`,
    ),
    pruneRequestIds: db.prepare(
      `DELETE FROM reply_request_ids WHERE job_id = @job_id AND n <=
         (SELECT max(n) FROM reply_request_ids WHERE job_id = @job_id) - @keep`,
    ),
    replyForRequest: db.prepare("SELECT seq FROM reply_request_ids WHERE job_id = ? AND request_id = ?"),
    pendingForRequest: db.prepare(
      "SELECT seq FROM replies WHERE job_id = ? AND request_id = ? AND acked = 0",
    ),
    pendingReplies: db.prepare(
      `SELECT job_id, seq, text, mode, kind, request_id, at FROM replies INDEXED BY replies_pending
       WHERE job_id = ? AND acked = 0 ORDER BY seq`,
    ),
    pendingCounts: db.prepare("SELECT job_id, count(*) AS n FROM replies WHERE acked = 0 GROUP BY job_id"),
    // The partial index of pending replies, named: without statistics SQLite would walk every
    // reply the job ever had (acked ones are kept).
    ackUpTo: db.prepare(
      "UPDATE replies INDEXED BY replies_pending SET acked = 1 WHERE job_id = ? AND seq <= ? AND kind IS NULL AND acked = 0",
    ),
    ackExact: db.prepare("UPDATE replies SET acked = 1 WHERE job_id = ? AND seq = ? AND acked = 0"),
    insertEvent: db.prepare(
      `INSERT INTO events (at, job_id, kind, text, who, who_id)
       VALUES (@at, @job_id, @kind, @text, @who, @who_id) RETURNING cursor`,
    ),
    pruneEvents: db.prepare("DELETE FROM events WHERE cursor <= ?"),
    eventsAfter: db.prepare(
      `SELECT * FROM events WHERE cursor > @after AND (@id IS NULL OR job_id = @id)
       ORDER BY cursor LIMIT @limit`,
    ),
    eventsNewest: db.prepare(
      `SELECT * FROM events WHERE cursor > @floor AND (@id IS NULL OR job_id = @id)
       ORDER BY cursor DESC LIMIT @limit`,
    ),
    lastCursor: db.prepare("SELECT max(cursor) AS c FROM events"),
    allTokens: db.prepare("SELECT name, hash, read_only, created_at FROM tokens ORDER BY created_at, name"),
    insertToken: db.prepare(
      "INSERT INTO tokens (name, hash, read_only, created_at) VALUES (@name, @hash, @read_only, @created_at) ON CONFLICT (name) DO NOTHING",
    ),
    deleteToken: db.prepare("DELETE FROM tokens WHERE name = ?"),
  };
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
const parse = <T>(v: unknown): T | null => (typeof v === "string" ? (JSON.parse(v) as T) : null);
/** What an agent sent, as kept: parsed if it parses (the core checks it), else `Unreadable`. */
function parseSent(v: unknown): unknown {
  try {
    return parse(v);
  } catch (err) {
    return new Unreadable((err as Error).message);
  }
}

function jobToParams(j: JobRecord): Params {
  return {
    id: j.id,
    token: j.token,
    profile: j.profile,
    launch: JSON.stringify(j.launch),
    user_name: j.userName,
    default_name: j.defaultName,
    role: j.role,
    parent: j.parent,
    pinned: j.pinned ? 1 : 0,
    ord: j.order,
    life: j.life,
    exit_code: j.exitCode,
    pid: j.pid,
    kind: j.kind,
    agent: json(j.agent),
    capabilities: JSON.stringify(j.capabilities),
    report: json(j.report),
    last_seq: j.lastSeq,
    dispatch_request_id: j.dispatchRequestId,
    created_at: j.createdAt,
    started_at: j.startedAt,
    ended_at: j.endedAt,
    updated_at: j.updatedAt,
  };
}

function jobFromRow(r: Params): StoredJob {
  return {
    id: r.id as string,
    token: r.token as string,
    profile: r.profile as string,
    launch: parse(r.launch)!,
    userName: r.user_name as string | null,
    defaultName: r.default_name as string,
    role: r.role as JobRecord["role"],
    parent: r.parent as string | null,
    pinned: r.pinned === 1,
    order: r.ord as number,
    life: r.life as JobRecord["life"],
    exitCode: r.exit_code as number | null,
    pid: r.pid as number | null,
    kind: r.kind as JobRecord["kind"],
    agent: parseSent(r.agent),
    capabilities: parseSent(r.capabilities),
    report: parseSent(r.report),
    lastSeq: r.last_seq as number,
    dispatchRequestId: r.dispatch_request_id as string | null,
    createdAt: r.created_at as string,
    startedAt: r.started_at as string | null,
    endedAt: r.ended_at as string | null,
    updatedAt: r.updated_at as string,
  };
}

function replyFromRow(r: Params): ReplyRecord {
  return {
    jobId: r.job_id as string,
    seq: r.seq as number,
    text: r.text as string,
    mode: r.mode as ReplyRecord["mode"],
    kind: r.kind as string | null,
    requestId: r.request_id as string | null,
    at: r.at as string,
  };
}

function eventFromRow(r: Params): FeedEntry {
  return {
    cursor: r.cursor as number,
    at: r.at as string,
    id: r.job_id as string,
    kind: r.kind as string,
    text: r.text as string,
    who: r.who as string,
    whoId: r.who_id as string | null,
  };
}
