/**
 * What a remote daemon may send this one (docs/fleet.md, "What a remote may send"): each message
 * of its `/api/subscribe` WebSocket and each answer to a relayed op, read and checked against the
 * schema set and the bounds of local input before anything here keeps, pushes or relays it. A
 * remote is another machine, possibly not roost at all: what it sends is input, never trusted.
 *
 * Every check here is a value, never a throw: `{ok: false, why}` says what the remote did wrong
 * ("its row build:j7: name must be string"), and remote-link.ts ends that remote's connection
 * with it. Only what is kept is checked in depth: a push this daemon does not follow (`feed`,
 * `board`, ...) is parsed (JSON.parse is not recursive) and let go.
 */

import { jsonBytes } from "../../sdk/ts/protocol/bounds.js";
import {
  type ErrorCode,
  isErrorCode,
  JobId,
  LIMITS,
  OPS,
  Row,
  viewState,
} from "../../sdk/ts/protocol/index.js";
import { excerpt } from "../core/text.js";
import { type Check, compileCheck } from "../validate.js";

export type Read<T> = { ok: true; value: T } | { ok: false; why: string };

/** A row of a remote's, as checked: the row and its size as JSON (a remote's rows are bounded in all). */
export interface Sized {
  row: Row;
  bytes: number;
}

/** A message of a remote's subscription, once read. */
export type SubscribeMessage =
  | { kind: "rows"; rows: Sized[] }
  | { kind: "refused"; error: string }
  | { kind: "row"; row: Sized }
  | { kind: "removed"; id: string }
  | { kind: "ignored" };

/** An answer of a remote's to a relayed op, once read: its result, or its refusal. */
export type Answer = { ok: true; result: unknown } | { ok: false; code: ErrorCode; error: string };

const MIB = 1024 * 1024;
export const TOO_LARGE = `more than ${LIMITS.remoteBytes / MIB} MiB`;

/**
 * The checks, compiled once per remote set (`Remotes` makes one): a row as the schema set says,
 * and each relayed op's result. A result nests its rows two levels below itself (`rows[i]`), so
 * its depth bound is two more than a row's own, which is a report's: a remote's row may nest as
 * deep as this daemon's own, no deeper.
 */
export class RemoteChecks {
  private readonly row: Check<Row> = compileCheck(Row, "");
  /** A job's id as the remote names it, and as this daemon names it (`NAME:ID`). */
  private readonly theirId: Check<string> = compileCheck(JobId, "", "id");
  private readonly jobId: Check<string> = compileCheck(JobId, "", "named here as REMOTE:ID, it");
  private readonly results: Readonly<Record<string, Check<unknown>>>;

  constructor(ops: readonly string[]) {
    this.results = Object.fromEntries(
      ops.map((op) => [op, compileCheck(OPS[op as keyof typeof OPS].result, "", "result", LIMITS.depth + 2)]),
    );
  }

  /** One message of the subscription (`data` as it came, at most LIMITS.remoteBytes: `maxPayload`). */
  message(data: Buffer, remote: string): Read<SubscribeMessage> {
    let msg: unknown;
    try {
      msg = JSON.parse(data.toString("utf8"));
    } catch {
      return { ok: false, why: "it sent a message that is not JSON" };
    }
    if (!isRecord(msg)) return { ok: false, why: "it sent a message that is neither an answer nor a push" };
    if ("ok" in msg) return this.subscribed(msg, remote);
    if (msg.event === "row") {
      const row = this.sized(msg.row, remote, "its row push");
      return row.ok ? { ok: true, value: { kind: "row", row: row.value } } : row;
    }
    if (msg.event === "removed") {
      const id = this.theirId(msg.id);
      return id.ok
        ? { ok: true, value: { kind: "removed", id: id.value } }
        : { ok: false, why: `its removed push: ${id.message}` };
    }
    if (typeof msg.event === "string") return { ok: true, value: { kind: "ignored" } };
    return { ok: false, why: "it sent a message that is neither an answer nor a push" };
  }

  /** Its answer to `subscribe`: every row checked, at most LIMITS.remoteRows and LIMITS.remoteBytes in all. */
  private subscribed(msg: Record<string, unknown>, remote: string): Read<SubscribeMessage> {
    if (msg.ok !== true) return { ok: true, value: { kind: "refused", error: theirWords(msg.error) } };
    const rows = isRecord(msg.result) ? msg.result.rows : undefined;
    if (!Array.isArray(rows)) return { ok: false, why: "its answer to subscribe: rows must be array" };
    if (rows.length > LIMITS.remoteRows)
      return { ok: false, why: `its answer to subscribe has more than ${LIMITS.remoteRows} rows` };
    const sized: Sized[] = [];
    let total = 0;
    for (const [i, r] of rows.entries()) {
      const row = this.sized(r, remote, `its answer to subscribe: rows[${i}]`);
      if (!row.ok) return row;
      total += row.value.bytes;
      if (total > LIMITS.remoteBytes) return { ok: false, why: `its rows came to ${TOO_LARGE} as JSON` };
      sized.push(row.value);
    }
    return { ok: true, value: { kind: "rows", rows: sized } };
  }

  /** One row, named by its id where it has one (`where` else), checked and measured. */
  private sized(value: unknown, remote: string, where: string): Read<Sized> {
    const id = isRecord(value) ? value.id : undefined;
    const named = this.theirId(id).ok ? `its row ${remote}:${id}` : where;
    const checked = this.row(withView(value));
    if (!checked.ok) return { ok: false, why: `${named}: ${checked.message}` };
    // Named here `remote:id` (its parent too), which must still be a job's id: ops name it so.
    for (const field of ["id", "parent"] as const) {
      const theirs = checked.value[field];
      const here = theirs === null ? null : this.jobId(`${remote}:${theirs}`);
      if (here && !here.ok) return { ok: false, why: `${named}: ${field}: ${here.message}` };
    }
    // Checked, so bounded in depth: JSON.stringify may walk it.
    const bytes = jsonBytes(checked.value);
    if (bytes > LIMITS.remoteRowBytes)
      return { ok: false, why: `${named} is more than ${LIMITS.remoteRowBytes / 1024} KiB as JSON` };
    return { ok: true, value: { row: checked.value, bytes } };
  }

  /**
   * Its answer to a relayed `op` (`body` as read): its result, checked against the op's, its rows
   * (`list`'s, `respawn`'s `job`) as a pushed row is; or its refusal.
   */
  answer(op: string, body: unknown, remote: string): Read<Answer> {
    if (!isRecord(body) || typeof body.ok !== "boolean")
      return { ok: false, why: `its answer to ${op} is not an answer ({ok, result} or {ok, error, code})` };
    if (!body.ok) {
      const code = isErrorCode(body.code) ? body.code : "busy";
      return { ok: true, value: { ok: false, code, error: theirWords(body.error) } };
    }
    const check = this.results[op];
    if (!check) return { ok: false, why: `it answered ${op}, which is not sent on to it` };
    const checked = check(withViews(body.result));
    if (!checked.ok) return { ok: false, why: `its answer to ${op}: ${checked.message}` };
    const result = checked.value as { rows?: unknown; job?: unknown };
    const rows = [...(Array.isArray(result.rows) ? result.rows : []), ...(result.job ? [result.job] : [])];
    for (const r of rows) {
      const row = this.sized(r, remote, "a row");
      if (!row.ok) return { ok: false, why: `its answer to ${op}: ${row.why}` };
    }
    return { ok: true, value: { ok: true, result: checked.value } };
  }

  /**
   * One message of a job's terminal WebSocket: the first is `attach`'s answer, then `output` (its
   * text), `detached` (why), or an answer to input or a size, which says nothing to the viewer.
   */
  terminal(data: Buffer, first: boolean, remote: string): Read<TerminalMessage> {
    let msg: unknown;
    try {
      msg = JSON.parse(data.toString("utf8"));
    } catch {
      return { ok: false, why: "its terminal sent a message that is not JSON" };
    }
    if (first) {
      const answer = this.answer("attach", msg, remote);
      return answer.ok ? { ok: true, value: { kind: "attached", answer: answer.value } } : answer;
    }
    if (!isRecord(msg))
      return { ok: false, why: "its terminal sent a message that is neither an answer nor an event" };
    if (msg.event === "output")
      return typeof msg.data === "string"
        ? { ok: true, value: { kind: "output", data: msg.data } }
        : { ok: false, why: "its terminal's output: data must be string" };
    if (msg.event === "detached") return { ok: true, value: { kind: "detached", why: theirWords(msg.why) } };
    return { ok: true, value: { kind: "ignored" } };
  }
}

export type TerminalMessage =
  | { kind: "attached"; answer: Answer }
  | { kind: "output"; data: string }
  | { kind: "detached"; why: string }
  | { kind: "ignored" };

/**
 * A response's body as JSON, read up to `max` bytes and no further: past it, the request is
 * aborted (`abort`) and nothing more is read, so that an answer of any length costs at most `max`.
 */
export async function readCapped(
  res: Response,
  max: number,
  abort: () => void,
  op: string,
): Promise<Read<unknown>> {
  const tooLarge = { ok: false as const, why: `it answered ${op} with ${TOO_LARGE}` };
  if (Number(res.headers.get("content-length") ?? 0) > max) {
    abort();
    return tooLarge;
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = res.body?.getReader();
  for (let next = await reader?.read(); next && !next.done; next = await reader?.read()) {
    bytes += next.value.byteLength;
    if (bytes > max) {
      abort();
      return tooLarge;
    }
    chunks.push(next.value);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    return { ok: false, why: `its answer to ${op} is not JSON (HTTP ${res.status})` };
  }
}

/** What a remote says in words (its refusal, why a terminal ended): one line, bounded, no controls. */
export const theirWords = (v: unknown): string =>
  typeof v === "string" && v.trim() !== "" ? excerpt(v, LIMITS.error) : "refused (it said no more)";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A relayed op's result with its rows (`list`'s, `respawn`'s `job`) given their `view` as a pushed row's is. */
function withViews(result: unknown): unknown {
  if (!isRecord(result)) return result;
  const out = { ...result };
  if (Array.isArray(out.rows)) out.rows = out.rows.map(withView);
  if ("job" in out) out.job = withView(out.job);
  return out;
}

/**
 * A row of a remote of an older roost lacks `view`, `waitingOn` and `begun`: it waits on none, has
 * begun, and its word is `viewState`'s of what it has (checked with the rest of the row after).
 */
function withView(value: unknown): unknown {
  if (!isRecord(value) || "view" in value) return value;
  const row = { waitingOn: [], begun: true, ...value };
  return { ...row, view: viewState(row as unknown as Parameters<typeof viewState>[0]) };
}
