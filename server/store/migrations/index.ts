/**
 * Numbered migrations: entry N brings a store at `PRAGMA user_version` N-1 to N. Append only; a
 * released migration never changes (a user's store may be at any step).
 */
export const MIGRATIONS: readonly string[] = [
  // 1: jobs, their replies and request ids, the events feed.
  `
  CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT;
  INSERT INTO counters (name, value) VALUES ('job', 0);

  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    profile TEXT NOT NULL,
    launch TEXT NOT NULL,             -- JSON: command, cwd, env, task mode, protocol
    user_name TEXT,                   -- set by dispatch's name or rename; wins over the report's
    default_name TEXT NOT NULL,
    role TEXT,
    parent TEXT,
    pinned INTEGER NOT NULL DEFAULT 0,
    ord INTEGER NOT NULL,
    life TEXT NOT NULL,
    exit_code INTEGER,
    pid INTEGER,
    kind TEXT NOT NULL,
    agent TEXT,                       -- JSON {name, version} from hello
    capabilities TEXT NOT NULL DEFAULT '[]',
    report TEXT,                      -- JSON: the latest report, every field present
    last_seq INTEGER NOT NULL DEFAULT 0,
    dispatch_request_id TEXT UNIQUE,
    created_at TEXT NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    updated_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE replies (
    job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    mode TEXT,
    kind TEXT,                        -- null: the user's; else a peer item, acked exactly
    acked INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL,
    PRIMARY KEY (job_id, seq)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX replies_pending ON replies (job_id, seq) WHERE acked = 0;

  CREATE TABLE reply_request_ids (
    job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    request_id TEXT NOT NULL,
    seq INTEGER NOT NULL,             -- 0 for a request that saved no reply (/stop)
    n INTEGER NOT NULL,               -- insertion order, to keep the last 100
    PRIMARY KEY (job_id, request_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX reply_request_ids_n ON reply_request_ids (job_id, n);

  CREATE TABLE events (
    cursor INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    job_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    who TEXT NOT NULL,
    who_id TEXT
  ) STRICT;
  CREATE INDEX events_job ON events (job_id, cursor);
  `,
  // 2: a reply carries its request id until it is taken. A terminal agent's id is kept (in
  // reply_request_ids) only once its text is typed; until then a resend finds it here.
  `
  ALTER TABLE replies ADD COLUMN request_id TEXT;
  CREATE INDEX replies_pending_request ON replies (job_id, request_id) WHERE acked = 0 AND request_id IS NOT NULL;
  `,
  // 3: named HTTP tokens (`roost token --name`). Only a hash of each is kept: the secret is shown
  // once, when it is made. The owner's token stays in $ROOST_HOME/token.
  `
  CREATE TABLE tokens (
    name TEXT PRIMARY KEY,
    hash TEXT NOT NULL,               -- sha256 of the secret, hex
    read_only INTEGER NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT;
  `,
  // 4: the peers (docs/protocol.md). A peer item is a reply with a sender: `peer_kind` (message,
  // report, notice), `from_id`/`from_name`, `relation`; `kind` stays what it was, set only for an
  // item delivered as an agent item (acked exactly), null for one delivered as an ordinary
  // follow-up with its envelope. `then_stop`: a child's handback with `done`, the child stopped
  // once it is delivered. `session_key`: a foreground pi's own session, so that it gets its id back.
  `
  ALTER TABLE replies ADD COLUMN peer_kind TEXT;
  ALTER TABLE replies ADD COLUMN from_id TEXT;
  ALTER TABLE replies ADD COLUMN from_name TEXT;
  ALTER TABLE replies ADD COLUMN relation TEXT;
  ALTER TABLE replies ADD COLUMN then_stop TEXT;
  CREATE INDEX replies_peer ON replies (from_id, at) WHERE from_id IS NOT NULL;

  ALTER TABLE jobs ADD COLUMN session_key TEXT;
  CREATE UNIQUE INDEX jobs_session_key ON jobs (session_key) WHERE session_key IS NOT NULL;

  CREATE TABLE watches (
    watcher TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    target TEXT NOT NULL,
    target_name TEXT NOT NULL,
    "when" TEXT NOT NULL,             -- idle | ended
    at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (watcher, target, "when")
  ) STRICT, WITHOUT ROWID;
  `,
  // 5: fewer pages written a reply (docs/benchmarks.md). A reply's request id on the reply's own
  // row, for every reply (it was kept in a table of its own: two more writes and a lookup a
  // reply). A `/stop` is now saved as a reply handled at once (acked), so its id is found like
  // any other; the ids of earlier `/stop`s (seq 0) go: such a resend, should one come after the
  // upgrade, stops the job again. The feed without AUTOINCREMENT (its counter was one more page
  // a write) and without its per-job index (about 1000 rows, read whole): a cursor is still never
  // reused, as the newest entries are never deleted, only the oldest.
  `
  CREATE TABLE events_new (
    cursor INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    job_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    who TEXT NOT NULL,
    who_id TEXT
  ) STRICT;
  INSERT INTO events_new SELECT cursor, at, job_id, kind, text, who, who_id FROM events;
  DROP TABLE events;
  ALTER TABLE events_new RENAME TO events;

  UPDATE replies SET request_id = (SELECT r.request_id FROM reply_request_ids r
      WHERE r.job_id = replies.job_id AND r.seq = replies.seq)
    WHERE request_id IS NULL
      AND EXISTS (SELECT 1 FROM reply_request_ids r WHERE r.job_id = replies.job_id AND r.seq = replies.seq);
  DROP TABLE reply_request_ids;
  DROP INDEX replies_pending_request;
  CREATE INDEX replies_request ON replies (job_id, request_id) WHERE request_id IS NOT NULL;
  `,
  // 6: the task board. One row a task (at most 200: the store's board deletes the ones it
  // lets go); `after` a JSON array of ids; ids from the counter 'task', never reused. A feed
  // entry's `why` (a `task` entry's change: add, claim, release, done, drop, assign).
  `
  INSERT INTO counters (name, value) VALUES ('task', 0);
  CREATE TABLE tasks (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    detail TEXT,
    state TEXT NOT NULL,              -- open | claimed | done | dropped
    after TEXT NOT NULL,              -- JSON: [id, ...]
    by_who TEXT NOT NULL,
    by_who_id TEXT,
    at TEXT NOT NULL,
    owner_id TEXT,
    owner_name TEXT,
    claimed_at TEXT,
    done_at TEXT,
    result TEXT,
    assigned_id TEXT,
    assigned_name TEXT,
    assigned_at TEXT
  ) STRICT;
  ALTER TABLE events ADD COLUMN why TEXT;
  `,
  // 7: schedules (docs/protocol.md, "Schedules"): a launch on a clock (`when`, read by
  // core/schedules/when.ts). `next_at` is kept, so that a restart neither loses nor doubles a run; `runs`
  // are the last 20, as JSON. Ids are `s1`, `s2`, …, never reused (the counter only grows).
  `
  INSERT INTO counters (name, value) VALUES ('schedule', 0);
  CREATE TABLE schedules (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    "when" TEXT NOT NULL,
    launch TEXT NOT NULL,             -- JSON {profile, task, name?, cwd?}
    paused INTEGER NOT NULL,
    missed TEXT NOT NULL,             -- skip | once
    created_at TEXT NOT NULL,         -- also what an "every" counts from
    next_at TEXT,
    last_at TEXT,
    last_job TEXT,
    runs TEXT NOT NULL                -- JSON [{at, job, outcome, why?}], oldest first
  ) STRICT;
  `,
  // 8: a job's git worktree (docs/worktrees.md): JSON {path, branch, repo, base, baseCommit,
  // baseDirty, stat}, NULL for a job run where it was told.
  `
  ALTER TABLE jobs ADD COLUMN worktree TEXT;
  `,
  // 9: the concierge. What the daemon keeps of it, a JSON value a key (core/concierge/concierge.ts:
  // its policy, its standing orders and their counter, its last answer, the feed cursor its last
  // digest reached): a few small values, each written whole when it changes. A digest's `why`
  // (`events`, `order`) on its reply, for its delivery.
  `
  CREATE TABLE concierge (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL               -- JSON
  ) STRICT;
  ALTER TABLE replies ADD COLUMN why TEXT;
  `,
  // 10: a row's \`asked\` (core/jobs/asked.ts): moves when its question or choices change and when it
  // is answered, kept so that an answer drawn before a restart is checked against it after.
  `
  ALTER TABLE jobs ADD COLUMN asked INTEGER NOT NULL DEFAULT 0;
  `,
  // 11: a job's conversation (core/jobs/conversation.ts): JSON {how, session, resumed}, how its
  // agent continues it at a respawn; NULL for a job whose agent roost cannot resume.
  `
  ALTER TABLE jobs ADD COLUMN conversation TEXT;
  `,
  // 12: what a session's creating ops were answered (\`send\`, \`handback\`, task \`add\` and
  // \`claim\` with \`next\`; docs/protocol.md, "The task board" and "The peer ops"), by the request id it gave: a resend after
  // a restart is answered what the first did. Written in the commit of what the op made; a day kept.
  `
  CREATE TABLE resends (
    session TEXT NOT NULL,
    request_id TEXT NOT NULL,
    op TEXT NOT NULL,
    answer TEXT NOT NULL,             -- JSON: what the resend is answered from
    at TEXT NOT NULL,
    PRIMARY KEY (session, request_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX resends_at ON resends (at);
  `,
  // 13: the merge queue (core/queue/queue.ts; docs/worktrees.md, "The merge queue"): each entry a JSON
  // record by its number, `n` never reused (the counter only grows). Ended entries past the latest
  // 100 are deleted.
  `
  INSERT INTO counters (name, value) VALUES ('queue', 0);
  CREATE TABLE queue (
    n INTEGER PRIMARY KEY,
    ended INTEGER NOT NULL,           -- 1 once landed, failed or cancelled
    entry TEXT NOT NULL               -- JSON: the record (server/store/queue.ts)
  ) STRICT;
  `,
  // 14: why roost stopped a job by itself (core/jobs/lifecycle.ts): 'budget' or 'idle', NULL otherwise.
  `
  ALTER TABLE jobs ADD COLUMN stop_reason TEXT;
  `,
  // 15: budgets (core/budgets/): a job's own budget and what it spent (JSON, records.ts's JobBudget),
  // the day's spend by profile and repository ('' for none; day: the daemon machine's local date),
  // and the notices said once a day (their key).
  `
  ALTER TABLE jobs ADD COLUMN budget TEXT;
  CREATE TABLE spend (
    day TEXT NOT NULL,
    profile TEXT NOT NULL,
    repo TEXT NOT NULL,
    cost REAL NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    minutes REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (day, profile, repo)
  ) STRICT;
  CREATE TABLE budget_notices (
    key TEXT PRIMARY KEY,
    at TEXT NOT NULL
  ) STRICT;
  `,
];
