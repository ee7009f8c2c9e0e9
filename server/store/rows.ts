/**
 * Rows as SQLite keeps them, and the records the core works with (records.ts), each way by one
 * rule: a field is kept in the column of its name in snake_case, as it is. Each table says only
 * where it keeps a field otherwise (another column, another form). Which columns a statement reads
 * and writes is statements.ts's.
 */
import type { BoardTask, FeedEntry } from "../../sdk/ts/protocol/index.js";
import {
  type JobRecord,
  type PeerMeta,
  type ReplyRecord,
  type ScheduleRecord,
  type StoredJob,
  type TokenRecord,
  Unreadable,
  type WatchRecord,
} from "./records.js";

export type Params = Record<string, unknown>;

/** How a field is kept otherwise: in another column, or written and read in another form. */
interface Kept {
  column?: string;
  write?: (v: unknown) => unknown;
  read?: (v: unknown) => unknown;
}

const parse = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : null);
/** JSON text (NULL for null). */
const json: Kept = { write: (v) => (v === null || v === undefined ? null : JSON.stringify(v)), read: parse };
/** 0 or 1. */
const bool: Kept = { write: (v) => (v ? 1 : 0), read: (v) => v === 1 };
/** What an agent sent, as JSON text: read back as it parses (the core checks it), else `Unreadable`. */
const sent: Kept = {
  write: json.write,
  read: (v) => {
    try {
      return parse(v);
    } catch (err) {
      return new Unreadable((err as Error).message);
    }
  },
};

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** What `map` holds for `key`, made and kept the first time it is asked for. */
function once<T>(map: Map<string, T>, key: string, make: () => T): T {
  let found = map.get(key);
  if (found === undefined) {
    found = make();
    map.set(key, found);
  }
  return found;
}

/** A table's way with its records (`R`, read back as `Read`): the rule, but for the fields `kept` names. */
function table<R extends object, Read = R>(kept: { [F in keyof R]?: Kept }) {
  const byField = new Map<string, Kept>(Object.entries(kept));
  const byColumn = new Map<string, { field: string; k: Kept | undefined }>(
    [...byField].map(([field, k]) => [k.column ?? snake(field), { field, k }]),
  );
  // Each name's other spelling is found once, then kept: a table's names are few and always the
  // same, and spelling them anew for every write was ~3 % of a busy daemon's time (profiled).
  const toColumn = new Map<string, { column: string; k: Kept | undefined }>();
  const column = (field: string) =>
    once(toColumn, field, () => {
      const k = byField.get(field);
      return { column: k?.column ?? snake(field), k };
    });
  const field = (column: string) => once(byColumn, column, () => ({ field: camel(column), k: undefined }));
  return {
    params(record: R): Params {
      const params: Params = {};
      for (const [name, value] of Object.entries(record)) {
        const { column: c, k } = column(name);
        params[c] = k?.write ? k.write(value) : value;
      }
      return params;
    },
    record(row: Params): Read {
      const record: Record<string, unknown> = {};
      for (const [c, value] of Object.entries(row)) {
        const { field: f, k } = field(c);
        record[f] = k?.read ? k.read(value) : value;
      }
      return record as Read;
    },
  };
}

const jobs = table<JobRecord, StoredJob>({
  launch: json,
  pinned: bool,
  order: { column: "ord" },
  agent: sent,
  capabilities: sent,
  report: sent,
  worktree: json,
  conversation: json,
  budget: json,
});
export const jobToParams = (j: JobRecord): Params => jobs.params(j);
export const jobFromRow = (r: Params): StoredJob => jobs.record(r);

/** A reply but for its peer part, which is four columns (null for the user's replies). */
const replies = table<Omit<ReplyRecord, "peer">>({});

export function replyToParams({ peer, ...reply }: ReplyRecord): Params {
  return {
    ...replies.params(reply),
    peer_kind: peer?.kind ?? null,
    from_id: peer?.from.id ?? null,
    from_name: peer?.from.name ?? null,
    relation: peer?.relation ?? null,
  };
}

export function replyFromRow({ peer_kind, from_id, from_name, relation, ...row }: Params): ReplyRecord {
  const peer = from_id
    ? {
        kind: peer_kind as PeerMeta["kind"],
        from: { id: from_id as string, name: from_name as string },
        relation: relation as PeerMeta["relation"],
      }
    : null;
  return { ...replies.record(row), peer };
}

const watches = table<WatchRecord>({});
export const watchFromRow = (r: Params): WatchRecord => watches.record(r);

const events = table<FeedEntry>({ id: { column: "job_id" } });
/** A feed entry's `why` (a task entry's change) is there only when it has one. */
export function eventFromRow(r: Params): FeedEntry {
  const { why, ...entry } = events.record(r);
  return why == null ? entry : { ...entry, why };
}

const tokens = table<TokenRecord>({ readOnly: bool });
export const tokenFromRow = (r: Params): TokenRecord => tokens.record(r);

/** A task keeps its people (by, owner, assigned) in columns of their own, its `after` as JSON. */
export function taskToParams(t: BoardTask): Params {
  return {
    id: t.id,
    title: t.title,
    detail: t.detail,
    state: t.state,
    after: JSON.stringify(t.after),
    by_who: t.by.who,
    by_who_id: t.by.whoId,
    at: t.at,
    owner_id: t.owner?.id ?? null,
    owner_name: t.owner?.name ?? null,
    claimed_at: t.claimedAt,
    done_at: t.doneAt,
    result: t.result,
    assigned_id: t.assigned?.id ?? null,
    assigned_name: t.assigned?.name ?? null,
    assigned_at: t.assigned?.at ?? null,
  };
}

export function taskFromRow(r: Params): BoardTask {
  return {
    id: r.id as number,
    title: r.title as string,
    detail: r.detail as string | null,
    state: r.state as BoardTask["state"],
    after: (parse(r.after) as number[] | null) ?? [],
    by: { who: r.by_who as string, whoId: r.by_who_id as string | null },
    at: r.at as string,
    owner: r.owner_id ? { id: r.owner_id as string, name: r.owner_name as string } : null,
    claimedAt: r.claimed_at as string | null,
    doneAt: r.done_at as string | null,
    result: r.result as string | null,
    assigned: r.assigned_id
      ? { id: r.assigned_id as string, name: r.assigned_name as string, at: r.assigned_at as string }
      : null,
  };
}

export function scheduleToParams(s: ScheduleRecord): Params {
  return {
    id: s.id,
    name: s.name,
    when: s.when,
    launch: JSON.stringify(s.launch),
    paused: s.paused ? 1 : 0,
    missed: s.missed,
    created_at: s.createdAt,
    next_at: s.nextAt,
    last_at: s.lastAt,
    last_job: s.lastJob,
    runs: JSON.stringify(s.runs),
  };
}

/** Written by this roost alone (no agent's text in it): read as kept. */
export function scheduleFromRow(r: Params): ScheduleRecord {
  return {
    id: r.id as string,
    name: r.name as string,
    when: r.when as string,
    launch: JSON.parse(r.launch as string),
    paused: r.paused === 1,
    missed: r.missed as ScheduleRecord["missed"],
    createdAt: r.created_at as string,
    nextAt: r.next_at as string | null,
    lastAt: r.last_at as string | null,
    lastJob: r.last_job as string | null,
    runs: JSON.parse(r.runs as string),
  };
}
