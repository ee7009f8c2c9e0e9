/**
 * The shared board's schema in PostgreSQL (docs/fleet.md), numbered as roost.db's migrations are
 * (migrations/index.ts): entry N takes the database from version N to N + 1, each in its own
 * transaction, under an advisory lock, so that daemons starting at once migrate it once. Every
 * table is named `roost_board_*`, so that the board can share a database with other things.
 */
export const PG_MIGRATIONS: readonly string[] = [
  // 1: the board. One row a task, as roost.db's `tasks` (migration 6), and its `version`, which a
  // write checks (a conditional update: another daemon's write between our read and ours makes it
  // take nothing). Session ids are qualified by their daemon (`alpha:3`). `meta` holds the next
  // task id; `daemons` each daemon's lease (a claim of a daemon whose lease ran out is released);
  // `changes` what each write changed, as its feed entries, for the other daemons' feeds.
  `
  CREATE TABLE roost_board_meta (
    one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    next_id BIGINT NOT NULL
  );
  INSERT INTO roost_board_meta (next_id) VALUES (1);
  CREATE TABLE roost_board_tasks (
    id BIGINT PRIMARY KEY,
    version BIGINT NOT NULL DEFAULT 1,
    title TEXT NOT NULL,
    detail TEXT,
    state TEXT NOT NULL CHECK (state IN ('open', 'claimed', 'done', 'dropped')),
    after BIGINT[] NOT NULL,
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
  );
  CREATE TABLE roost_board_daemons (
    name TEXT PRIMARY KEY,
    instance TEXT NOT NULL,
    lease_until TIMESTAMPTZ NOT NULL
  );
  CREATE TABLE roost_board_changes (
    id BIGSERIAL PRIMARY KEY,
    daemon TEXT NOT NULL,
    notes JSONB NOT NULL
  );
  `,
  // 2: the lease's fencing number (pg-lease.ts). A daemon's `epoch` goes up each time it takes its
  // lease again after it ran out; a claim keeps the epoch it was made under, so that a release for
  // a lost lease takes only the claims made under that lease. Claims from before have none (0).
  `
  ALTER TABLE roost_board_daemons ADD COLUMN epoch BIGINT NOT NULL DEFAULT 1;
  ALTER TABLE roost_board_tasks ADD COLUMN claim_epoch BIGINT;
  `,
];
