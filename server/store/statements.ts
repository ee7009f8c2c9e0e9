/**
 * Every statement of the store, prepared once when it opens: the one place with SQL besides the
 * migrations.
 */
import type Database from "better-sqlite3";

const JOB_COLUMNS = `id, token, profile, launch, user_name, default_name, role, parent, pinned, ord, life,
  exit_code, pid, kind, agent, capabilities, report, last_seq, dispatch_request_id, created_at,
  started_at, ended_at, updated_at`;

const columns = JOB_COLUMNS.split(",").map((c) => c.trim());

const SQL = {
  allJobs: `SELECT ${JOB_COLUMNS} FROM jobs`,
  nextJobNumber: "UPDATE counters SET value = value + 1 WHERE name = 'job' RETURNING value",
  insertJob: `INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`,
  // All but last_seq: a reply's seq is taken by `nextSeq` alone, in the reply's transaction.
  updateJob: `UPDATE jobs SET ${columns
    .filter((c) => c !== "id" && c !== "last_seq")
    .map((c) => `${c} = @${c}`)
    .join(", ")} WHERE id = @id`,
  deleteJob: "DELETE FROM jobs WHERE id = ?",
  jobForDispatchRequest: "SELECT id FROM jobs WHERE dispatch_request_id = ?",
  // The job's next reply seq, taken in the transaction that saves the reply: rolled back with it.
  nextSeq:
    "UPDATE jobs SET last_seq = last_seq + 1, updated_at = @updated_at WHERE id = @id RETURNING last_seq",
  insertReply: `INSERT INTO replies (job_id, seq, text, mode, kind, request_id, at)
     VALUES (@job_id, @seq, @text, @mode, @kind, @request_id, @at)`,
  insertRequestId: `INSERT INTO reply_request_ids (job_id, request_id, seq, n)
     VALUES (@job_id, @request_id, @seq,
       (SELECT coalesce(max(n), 0) + 1 FROM reply_request_ids WHERE job_id = @job_id))`,
  pruneRequestIds: `DELETE FROM reply_request_ids WHERE job_id = @job_id AND n <=
       (SELECT max(n) FROM reply_request_ids WHERE job_id = @job_id) - @keep`,
  replyForRequest: "SELECT seq FROM reply_request_ids WHERE job_id = ? AND request_id = ?",
  pendingForRequest: "SELECT seq FROM replies WHERE job_id = ? AND request_id = ? AND acked = 0",
  pendingReplies: `SELECT job_id, seq, text, mode, kind, request_id, at FROM replies INDEXED BY replies_pending
     WHERE job_id = ? AND acked = 0 ORDER BY seq`,
  pendingCounts: "SELECT job_id, count(*) AS n FROM replies WHERE acked = 0 GROUP BY job_id",
  // The partial index of pending replies, named: without statistics SQLite would walk every
  // reply the job ever had (acked ones are kept).
  ackUpTo:
    "UPDATE replies INDEXED BY replies_pending SET acked = 1 WHERE job_id = ? AND seq <= ? AND kind IS NULL AND acked = 0",
  ackExact: "UPDATE replies SET acked = 1 WHERE job_id = ? AND seq = ? AND acked = 0",
  insertEvent: `INSERT INTO events (at, job_id, kind, text, who, who_id)
     VALUES (@at, @job_id, @kind, @text, @who, @who_id) RETURNING cursor`,
  pruneEvents: "DELETE FROM events WHERE cursor <= ?",
  eventsAfter: `SELECT * FROM events WHERE cursor > @after AND (@id IS NULL OR job_id = @id)
     ORDER BY cursor LIMIT @limit`,
  eventsNewest: `SELECT * FROM events WHERE cursor > @floor AND (@id IS NULL OR job_id = @id)
     ORDER BY cursor DESC LIMIT @limit`,
  lastCursor: "SELECT max(cursor) AS c FROM events",
  allTokens: "SELECT name, hash, read_only, created_at FROM tokens ORDER BY created_at, name",
  insertToken:
    "INSERT INTO tokens (name, hash, read_only, created_at) VALUES (@name, @hash, @read_only, @created_at) ON CONFLICT (name) DO NOTHING",
  deleteToken: "DELETE FROM tokens WHERE name = ?",
};

export type Statements = { [K in keyof typeof SQL]: Database.Statement };

export function prepare(db: Database.Database): Statements {
  return Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
}
