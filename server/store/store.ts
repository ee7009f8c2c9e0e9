/**
 * The store: the one module with SQL (docs/design.md, "The parts": roost.db, SQLite in
 * WAL mode), the façade the core uses. Its parts: opening and migrations (open.ts), statements
 * and row mapping (statements.ts, rows.ts), replies and acks (replies.ts), transactions and group
 * commit (group-commit.ts); jobs, the events feed, HTTP tokens and schedules are here. The jobs'
 * conversations are files in their directories, beside roost.db's (conversations.ts).
 */
import path from "node:path";
import type Database from "better-sqlite3";
import type { FeedEntry } from "../../sdk/ts/protocol/index.js";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { type BoardStore, SqliteBoard } from "./board.js";
import { Conversations } from "./conversations.js";
import { GroupCommit } from "./group-commit.js";
import { type CheckpointThread, openDatabase } from "./open.js";
import { QueueStore } from "./queue.js";
import type {
  JobRecord,
  NewFeedEntry,
  NewReply,
  ReplyRecord,
  ScheduleRecord,
  StoredJob,
  TokenRecord,
  WatchRecord,
} from "./records.js";
import { Replies } from "./replies.js";
import {
  eventFromRow,
  jobFromRow,
  jobToParams,
  type Params,
  replyFromRow,
  scheduleFromRow,
  scheduleToParams,
  tokenFromRow,
  watchFromRow,
} from "./rows.js";
import { SpendStore } from "./spend.js";
import { prepare, type Statements } from "./statements.js";

/** How long a creating op's answer is kept for a resend (rememberRequest). */
const REQUESTS_KEPT_MS = 24 * 3600_000;

export class Store {
  readonly db: Database.Database;
  private readonly sql: Statements;
  private readonly commits: GroupCommit;
  private readonly replies: Replies;
  /** The task board's tasks (board.ts): behind an interface, so that another store can hold them. */
  readonly board: BoardStore;
  /** The jobs' conversations, in `jobs/<id>/` beside the database (the home's layout: paths.ts). */
  readonly conversations: Conversations;
  /** The merge queue's entries (queue.ts). */
  readonly queue: QueueStore;
  /** What jobs spent a day (spend.ts): budgets' totals. */
  readonly spend: SpendStore;
  private readonly checkpoints: CheckpointThread | null;

  /**
   * `checkpoints: "thread"` (the daemon) moves WAL checkpoints off this thread (checkpointer.ts);
   * `syncLog` (power-cut tests only) turns them off and logs each sync (wal-sync.ts).
   * `walMostBytes`: see open.ts's WAL_MOST_BYTES (smaller in a test).
   */
  constructor(
    file: string,
    opts: { checkpoints?: "inline" | "thread"; syncLog?: string; walMostBytes?: number } = {},
  ) {
    const opened = openDatabase(file, opts.syncLog ? "none" : opts.checkpoints, opts.walMostBytes);
    this.db = opened.db;
    this.checkpoints = opened.checkpoints;
    this.sql = prepare(this.db);
    this.commits = new GroupCommit(this.db, opts.syncLog ?? null);
    this.replies = new Replies(this.sql, this.commits, () => this.db.open);
    this.board = new SqliteBoard(this.sql, this.commits);
    this.conversations = new Conversations(path.join(path.dirname(file), "jobs"));
    this.queue = new QueueStore(this.db, this.commits);
    this.spend = new SpendStore(this.db, this.commits);
  }

  close(): void {
    this.commits.commit();
    this.replies.flushAcks();
    this.commits.wal.close();
    this.checkpoints?.stop();
    if (this.db.open) this.db.close();
  }

  /** Several writes as one transaction (one commit): all land, or none. Nests. */
  batch<T>(writes: () => T): T {
    return this.commits.run(writes);
  }

  /**
   * A write in the commit this turn's writes share, resolved once it has committed; should that
   * fail, each is tried alone (group-commit.ts).
   */
  commitSoon<T>(write: () => T): Promise<T> {
    return this.commits.soon(write);
  }

  /**
   * Resolves once every commit made so far is on disk (wal-sync.ts): what answers `saved` after
   * a write of its own (`batch`, `createJob`) awaits it before the answer leaves.
   */
  synced(): Promise<void> {
    return this.commits.wal.durable();
  }

  // ---- jobs ----

  /** Every job, as kept: what its agent sent is checked by the core (core/jobs/stored-jobs.ts). */
  loadJobs(): StoredJob[] {
    return (this.sql.allJobs.all() as Params[]).map(jobFromRow);
  }

  /**
   * Creates a job: its number (ids are never reused, even after `rm`: the counter only grows),
   * the record, its first reply (a `type` task) and its dispatch request id, in one transaction.
   * Returns the job and its last seq (1 with a first reply): the caller sets it on the record.
   */
  createJob(
    build: (num: number) => JobRecord,
    firstReply: NewReply | null,
  ): { job: JobRecord; lastSeq: number } {
    return this.commits.run(() => {
      const { value } = this.sql.nextJobNumber.get() as { value: number };
      const job = build(value);
      this.sql.insertJob.run(jobToParams(job));
      return { job, lastSeq: firstReply ? this.replies.add(job.id, firstReply) : job.lastSeq };
    });
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
      this.commits.run(() => {
        for (const job of jobs) this.sql.updateJob.run(jobToParams(job));
      });
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
    this.replies.forget(id);
    this.conversations.forget(id);
    this.sql.deleteJob.run(id);
  }

  jobForDispatchRequest(requestId: string): string | null {
    const row = this.sql.jobForDispatchRequest.get(requestId) as { id: string } | undefined;
    return row?.id ?? null;
  }

  /**
   * What a session's creating op (`op`: "send", "task add" …) made, by the request id it gave, so
   * that a resend is answered the same: written in the caller's transaction (the one that saves
   * what the op made), and kept a day.
   */
  rememberRequest(session: string, requestId: string, op: string, answer: unknown): void {
    const now = Date.now();
    this.sql.putRequest.run(session, requestId, op, JSON.stringify(answer), new Date(now).toISOString());
    this.sql.pruneRequests.run(new Date(now - REQUESTS_KEPT_MS).toISOString());
  }

  /** What `rememberRequest` kept for this request, if it was an `op`'s (null: none, or another op's). */
  requestAnswer(session: string, requestId: string, op: string): unknown {
    const row = this.sql.requestAnswer.get(session, requestId) as { op: string; answer: string } | undefined;
    return row && row.op === op ? JSON.parse(row.answer) : null;
  }

  // ---- replies (replies.ts) ----

  /**
   * Saves a reply with the job's next seq, and returns that seq; the job's record is the
   * caller's to bring up to it once the write has committed (see Replies.add).
   */
  addReply(jobId: string, reply: NewReply, handled = false): number {
    return this.replies.add(jobId, reply, handled);
  }

  asFollowUp(jobId: string, seq: number): void {
    this.replies.asFollowUp(jobId, seq);
  }

  markTyped(jobId: string, seq: number): void {
    this.replies.markTyped(jobId, seq);
  }

  replyForRequest(jobId: string, requestId: string): number | null {
    return this.replies.forRequest(jobId, requestId);
  }

  pendingReplies(jobId: string): ReplyRecord[] {
    return this.replies.pendingReplies(jobId);
  }

  /** Reads these jobs' pending replies in one query, for their agents to take (see Replies). */
  readPending(jobIds: string[]): void {
    this.replies.readPending(jobIds);
  }

  pendingCounts(): Map<string, number> {
    return this.replies.pendingCounts();
  }

  ack(jobId: string, seq: number, exact: boolean): number {
    return this.replies.ack(jobId, seq, exact);
  }

  flushAcks(): void {
    this.replies.flushAcks();
  }

  // ---- the peers (core/peers/peers.ts) ----

  /** Peer items sent after `since` (ISO time), oldest first: the rules' memory after a restart. */
  peerItemsSince(since: string): ReplyRecord[] {
    return (this.sql.peerItemsSince.all(since) as Params[]).map(replyFromRow);
  }

  jobForSessionKey(key: string): string | null {
    const row = this.sql.jobForSessionKey.get(key) as { id: string } | undefined;
    return row?.id ?? null;
  }

  watches(): WatchRecord[] {
    return (this.sql.allWatches.all() as Params[]).map(watchFromRow);
  }

  putWatch(w: WatchRecord): void {
    this.commits.run(() =>
      this.sql.upsertWatch.run({
        watcher: w.watcher,
        target: w.target,
        target_name: w.targetName,
        when: w.when,
        at: w.at,
        expires_at: w.expiresAt,
      }),
    );
  }

  removeWatch(w: Pick<WatchRecord, "watcher" | "target" | "when">): void {
    this.commits.run(() => this.sql.deleteWatch.run(w.watcher, w.target, w.when));
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
      why: entry.why ?? null,
    }) as { cursor: number };
    // Keep the last 1000: pruned in steps so that each insert stays one cheap statement.
    if (cursor % 100 === 0) this.sql.pruneEvents.run(cursor - LIMITS.feedKept);
    return { cursor, at, ...entry };
  }

  /** After a cursor: the oldest first; without one: the newest `limit` (still oldest first). */
  events(q: { after?: number; limit: number; id?: string; involving?: string }): FeedEntry[] {
    const floor = this.lastCursor() - LIMITS.feedKept;
    const jobs = { id: q.id ?? null, involving: q.involving ?? null };
    const rows =
      q.after !== undefined
        ? (this.sql.eventsAfter.all({ after: Math.max(q.after, floor), ...jobs, limit: q.limit }) as Params[])
        : (this.sql.eventsNewest.all({ floor, ...jobs, limit: q.limit }) as Params[]).reverse();
    return rows.map(eventFromRow);
  }

  lastCursor(): number {
    return (this.sql.lastCursor.get() as { c: number | null }).c ?? 0;
  }

  // ---- schedules (core/schedules/schedules.ts) ----

  schedules(): ScheduleRecord[] {
    return (this.sql.allSchedules.all() as Params[]).map(scheduleFromRow);
  }

  /** A new schedule: its number (`s<n>`, never reused) and the record, in one transaction. */
  createSchedule(build: (num: number) => ScheduleRecord): ScheduleRecord {
    return this.commits.run(() => {
      const { value } = this.sql.nextScheduleNumber.get() as { value: number };
      const s = build(value);
      this.sql.putSchedule.run(scheduleToParams(s));
      return s;
    });
  }

  /** Its state now (paused, next run, last runs); what it runs and when never change. */
  putSchedule(s: ScheduleRecord): void {
    this.commits.run(() => this.sql.putSchedule.run(scheduleToParams(s)));
  }

  removeSchedule(id: string): void {
    this.commits.run(() => this.sql.deleteSchedule.run(id));
  }

  // ---- the concierge's (core/concierge/concierge.ts) ----

  /** What the concierge's parts kept, a value a key (each as its part wrote it). */
  conciergeKept(): Map<string, unknown> {
    const rows = this.sql.allConcierge.all() as { key: string; value: string }[];
    return new Map(rows.map((r) => [r.key, JSON.parse(r.value)]));
  }

  keepConcierge(key: string, value: unknown): void {
    this.commits.run(() => this.sql.putConcierge.run(key, JSON.stringify(value)));
  }

  // ---- named HTTP tokens ----

  tokens(): TokenRecord[] {
    return (this.sql.allTokens.all() as Params[]).map(tokenFromRow);
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
