/** Rows as SQLite keeps them, and the records the core works with (records.ts): each way, once. */
import type { BoardTask, FeedEntry } from "../../sdk/ts/protocol/index.js";
import {
  type JobRecord,
  type PeerMeta,
  type ReplyRecord,
  type StoredJob,
  type TokenRecord,
  Unreadable,
  type WatchRecord,
} from "./records.js";

export type Params = Record<string, unknown>;

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

export function jobToParams(j: JobRecord): Params {
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
    session_key: j.sessionKey,
  };
}

export function jobFromRow(r: Params): StoredJob {
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
    sessionKey: (r.session_key as string | null) ?? null,
  };
}

export function replyFromRow(r: Params): ReplyRecord {
  return {
    jobId: r.job_id as string,
    seq: r.seq as number,
    text: r.text as string,
    mode: r.mode as ReplyRecord["mode"],
    kind: r.kind as string | null,
    requestId: r.request_id as string | null,
    at: r.at as string,
    peer: r.from_id
      ? {
          kind: r.peer_kind as PeerMeta["kind"],
          from: { id: r.from_id as string, name: r.from_name as string },
          relation: r.relation as PeerMeta["relation"],
        }
      : null,
    thenStop: (r.then_stop as string | null) ?? null,
  };
}

export function replyToParams(r: ReplyRecord): Params {
  return {
    job_id: r.jobId,
    seq: r.seq,
    text: r.text,
    mode: r.mode,
    kind: r.kind,
    request_id: r.requestId,
    at: r.at,
    peer_kind: r.peer?.kind ?? null,
    from_id: r.peer?.from.id ?? null,
    from_name: r.peer?.from.name ?? null,
    relation: r.peer?.relation ?? null,
    then_stop: r.thenStop,
  };
}

export function watchFromRow(r: Params): WatchRecord {
  return {
    watcher: r.watcher as string,
    target: r.target as string,
    targetName: r.target_name as string,
    when: r.when as WatchRecord["when"],
    at: r.at as string,
    expiresAt: r.expires_at as string,
  };
}

export function eventFromRow(r: Params): FeedEntry {
  return {
    cursor: r.cursor as number,
    at: r.at as string,
    id: r.job_id as string,
    kind: r.kind as string,
    text: r.text as string,
    who: r.who as string,
    whoId: r.who_id as string | null,
    ...(typeof r.why === "string" ? { why: r.why } : {}),
  };
}

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
    after: parse<number[]>(r.after) ?? [],
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

export function tokenFromRow(r: Params): TokenRecord {
  return {
    name: r.name as string,
    hash: r.hash as string,
    readOnly: r.read_only === 1,
    createdAt: r.created_at as string,
  };
}
