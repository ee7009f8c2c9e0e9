/**
 * Every statement of the store, prepared once when it opens: the one place with SQL besides the
 * migrations.
 */
import type Database from "better-sqlite3";

const JOB_COLUMNS = `id, token, profile, launch, user_name, default_name, role, parent, pinned, ord, life,
  exit_code, pid, kind, agent, capabilities, report, last_seq, dispatch_request_id, created_at,
  started_at, ended_at, updated_at, session_key, worktree, asked, conversation, stop_reason, budget`;
const REPLY_COLUMNS =
  "job_id, seq, text, mode, kind, request_id, at, peer_kind, from_id, from_name, relation, then_stop, why";

const TASK_COLUMNS = `id, title, detail, state, after, by_who, by_who_id, at, owner_id, owner_name,
  claimed_at, done_at, result, assigned_id, assigned_name, assigned_at`;

const columns = JOB_COLUMNS.split(",").map((c) => c.trim());
const taskColumns = TASK_COLUMNS.split(",").map((c) => c.trim());

// A job's last reply seq is its highest reply's (replies go only with their job). The row's
// `last_seq` is a floor, written with the row: stores from before the seq was counted in memory
// kept it exact there, and a row written after a reply holds that reply's seq.
const LAST_SEQ = "max(last_seq, coalesce((SELECT max(seq) FROM replies WHERE job_id = jobs.id), 0))";

const SQL = {
  allJobs: `SELECT ${columns.map((c) => (c === "last_seq" ? `${LAST_SEQ} AS last_seq` : c)).join(", ")} FROM jobs`,
  nextJobNumber: "UPDATE counters SET value = value + 1 WHERE name = 'job' RETURNING value",
  insertJob: `INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`,
  updateJob: `UPDATE jobs SET ${columns
    .filter((c) => c !== "id")
    .map((c) => `${c} = @${c}`)
    .join(", ")} WHERE id = @id`,
  deleteJob: "DELETE FROM jobs WHERE id = ?",
  jobForDispatchRequest: "SELECT id FROM jobs WHERE dispatch_request_id = ?",
  // Where a job's seqs stand, read once (then counted in memory: Replies.add); no row when the
  // job is not in the store.
  lastSeq: `SELECT ${LAST_SEQ} AS last_seq FROM jobs WHERE id = ?`,
  insertReply: `INSERT INTO replies (${REPLY_COLUMNS}, acked)
     VALUES (${REPLY_COLUMNS.split(", ")
       .map((c) => `@${c}`)
       .join(", ")}, @acked)`,
  // A request id is the job's while it is among the job's last 100 (see Replies.forRequest); one
  // used again after it was forgotten is on two replies, and the later counts.
  replyForRequest: `SELECT seq FROM replies INDEXED BY replies_request WHERE job_id = ? AND request_id = ?
     ORDER BY seq DESC LIMIT 1`,
  requestIdsAfter: `SELECT count(*) AS n FROM (SELECT 1 FROM replies
     WHERE job_id = ? AND seq > ? AND request_id IS NOT NULL LIMIT ?)`,
  pendingReplies: `SELECT ${REPLY_COLUMNS} FROM replies INDEXED BY replies_pending
     WHERE job_id = ? AND acked = 0 ORDER BY seq`,
  pendingCounts: "SELECT job_id, count(*) AS n FROM replies WHERE acked = 0 GROUP BY job_id",
  // Several jobs' at once (a JSON array of ids), each job's in order.
  pendingRepliesOf: `SELECT ${REPLY_COLUMNS} FROM replies INDEXED BY replies_pending
     WHERE job_id IN (SELECT value FROM json_each(?)) AND acked = 0 ORDER BY job_id, seq`,
  // The partial index of pending replies, named: without statistics SQLite would walk every
  // reply the job ever had (acked ones are kept).
  ackUpTo:
    "UPDATE replies INDEXED BY replies_pending SET acked = 1 WHERE job_id = ? AND seq <= ? AND kind IS NULL AND acked = 0",
  ackExact: "UPDATE replies SET acked = 1 WHERE job_id = ? AND seq = ? AND acked = 0",
  asFollowUp: "UPDATE replies SET kind = NULL WHERE job_id = ? AND seq = ?",
  // Peer items sent since a time: the rules' memory (duplicates, the rate), read again at start.
  peerItemsSince: `SELECT ${REPLY_COLUMNS} FROM replies INDEXED BY replies_peer
     WHERE from_id IS NOT NULL AND at > ? ORDER BY at`,
  jobForSessionKey: "SELECT id FROM jobs WHERE session_key = ?",
  allWatches: 'SELECT watcher, target, target_name, "when", at, expires_at FROM watches',
  upsertWatch: `INSERT INTO watches (watcher, target, target_name, "when", at, expires_at)
     VALUES (@watcher, @target, @target_name, @when, @at, @expires_at)
     ON CONFLICT (watcher, target, "when") DO UPDATE SET at = @at, expires_at = @expires_at, target_name = @target_name`,
  deleteWatch: 'DELETE FROM watches WHERE watcher = ? AND target = ? AND "when" = ?',
  insertEvent: `INSERT INTO events (at, job_id, kind, text, who, who_id, why)
     VALUES (@at, @job_id, @kind, @text, @who, @who_id, @why) RETURNING cursor`,
  pruneEvents: "DELETE FROM events WHERE cursor <= ?",
  // `involving`: about the job or by it. The table holds about 1000 rows: no index is worth it.
  eventsAfter: `SELECT * FROM events WHERE cursor > @after AND (@id IS NULL OR job_id = @id)
     AND (@involving IS NULL OR job_id = @involving OR who_id = @involving)
     ORDER BY cursor LIMIT @limit`,
  eventsNewest: `SELECT * FROM events WHERE cursor > @floor AND (@id IS NULL OR job_id = @id)
     AND (@involving IS NULL OR job_id = @involving OR who_id = @involving)
     ORDER BY cursor DESC LIMIT @limit`,
  lastCursor: "SELECT max(cursor) AS c FROM events",
  // A session's creating ops, by request id (store.ts: rememberRequest).
  requestAnswer: "SELECT op, answer FROM resends WHERE session = ? AND request_id = ?",
  putRequest: `INSERT INTO resends (session, request_id, op, answer, at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session, request_id) DO NOTHING`,
  pruneRequests: "DELETE FROM resends WHERE at < ?",
  // The task board (store/board.ts).
  allTasks: `SELECT ${TASK_COLUMNS} FROM tasks ORDER BY id`,
  lastTaskId: "SELECT value FROM counters WHERE name = 'task'",
  setLastTaskId: "UPDATE counters SET value = ? WHERE name = 'task'",
  putTask: `INSERT INTO tasks (${TASK_COLUMNS}) VALUES (${taskColumns.map((c) => `@${c}`).join(", ")})
     ON CONFLICT (id) DO UPDATE SET ${taskColumns
       .filter((c) => c !== "id")
       .map((c) => `${c} = @${c}`)
       .join(", ")}`,
  deleteTask: "DELETE FROM tasks WHERE id = ?",
  keepTasks: "DELETE FROM tasks WHERE id NOT IN (SELECT value FROM json_each(?))",
  allSchedules: `SELECT id, name, "when", launch, paused, missed, created_at, next_at, last_at, last_job, runs
     FROM schedules ORDER BY CAST(substr(id, 2) AS INTEGER)`,
  nextScheduleNumber: "UPDATE counters SET value = value + 1 WHERE name = 'schedule' RETURNING value",
  putSchedule: `INSERT INTO schedules (id, name, "when", launch, paused, missed, created_at, next_at, last_at, last_job, runs)
     VALUES (@id, @name, @when, @launch, @paused, @missed, @created_at, @next_at, @last_at, @last_job, @runs)
     ON CONFLICT (id) DO UPDATE SET name = @name, paused = @paused, next_at = @next_at, last_at = @last_at,
       last_job = @last_job, runs = @runs`,
  deleteSchedule: "DELETE FROM schedules WHERE id = ?",
  // The concierge's (core/concierge/concierge.ts): a JSON value a key.
  allConcierge: "SELECT key, value FROM concierge",
  putConcierge:
    "INSERT INTO concierge (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  allTokens: "SELECT name, hash, read_only, created_at FROM tokens ORDER BY created_at, name",
  insertToken:
    "INSERT INTO tokens (name, hash, read_only, created_at) VALUES (@name, @hash, @read_only, @created_at) ON CONFLICT (name) DO NOTHING",
  deleteToken: "DELETE FROM tokens WHERE name = ?",
};

export type Statements = { [K in keyof typeof SQL]: Database.Statement };

export function prepare(db: Database.Database): Statements {
  return Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
}
