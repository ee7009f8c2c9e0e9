/**
 * One remote daemon followed (docs/fleet.md): its rows as its `/api/subscribe` WebSocket pushes them
 * (checked: remote-input.ts), whether it answers (tried again, 250 ms doubling to 2 s, while this
 * daemon runs), and calls to its API with the token roost.json keeps for it.
 */
import WebSocket from "ws";
import { LIMITS, type RemoteStatus, RoostError, type Row } from "../../sdk/ts/protocol/index.js";
import type { Pushes } from "../core/pushes.js";
import { excerpt } from "../core/text.js";
import { hideForms } from "../secrets.js";
import { type Read, type RemoteChecks, readCapped, type Sized, TOO_LARGE } from "./remote-input.js";
import type { RemoteTerminal } from "./remote-terminal.js";

export interface RemoteConfig {
  name: string;
  url: string;
  token: string;
}

const MAX_BACKOFF_MS = 2000;
/** How long a call to a remote may take before it is said not to answer. */
const CALL_MS = 15000;

/** A remote's id for its job, and the name it goes by here: `name:id`. */
const qualified = (name: string, id: string) => `${name}:${id}`;

/** One remote: its rows as it pushes them (checked), whether it answers, and calls to its API. */
export class RemoteLink {
  /** Its rows by its ids, each with its size as JSON: all of them at most LIMITS.remoteBytes. */
  private rows = new Map<string, Sized>();
  private bytes = 0;
  /** The terminals relayed from it, to any viewer. */
  readonly terminals = new Set<RemoteTerminal>();
  private reachable = false;
  private error: string | null = "not connected yet";
  private ws: WebSocket | null = null;
  private backoff = 250;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    readonly config: RemoteConfig,
    private readonly pushes: Pushes,
    readonly checks: RemoteChecks,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** The remote's address for `path` (`api/subscribe`), as http(s) or ws(s). */
  address(path: string, ws = false): string {
    const url = new URL(path, this.config.url.endsWith("/") ? this.config.url : `${this.config.url}/`);
    if (ws) url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    return url.toString();
  }

  get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.config.token}` };
  }

  /** A WebSocket to the remote's `path`, with its token, refusing a message past LIMITS.remoteBytes. */
  open(path: string): WebSocket {
    return new WebSocket(this.address(path, true), { headers: this.headers, maxPayload: LIMITS.remoteBytes });
  }

  /** As every hub sees it, read-only ones too: a secret its url holds (`?token=`, `user:pw@`) left out. */
  status(): RemoteStatus {
    const error = this.error === null ? null : hideForms(this.error);
    return { name: this.name, url: hideForms(this.config.url), reachable: this.reachable, error };
  }

  shownRows(): Row[] {
    return [...this.rows.values()].map((r) => this.shown(r.row));
  }

  /** A row of the remote's as this daemon's hubs see it: its ids qualified, marked with its daemon. */
  private shown(r: Row): Row {
    return {
      ...r,
      id: qualified(this.name, r.id),
      parent: r.parent === null ? null : qualified(this.name, r.parent),
      daemon: this.name,
      reachable: this.reachable,
    };
  }

  /** An answer of the remote's (checked: `call`), its rows (`rows`, `job`) as this daemon's hubs see them. */
  ours(result: { rows?: Row[]; job?: Row }): unknown {
    if (!result || typeof result !== "object") return result;
    return {
      ...result,
      ...(result.rows ? { rows: result.rows.map((x) => this.shown(x)) } : {}),
      ...(result.job ? { job: this.shown(result.job) } : {}),
    };
  }

  connect(): void {
    this.timer = null;
    if (this.closed) return;
    const ws = this.open("api/subscribe");
    this.ws = ws;
    ws.on("message", (data: Buffer) => {
      if (this.ws !== ws) return; // cut off: what it had sent already goes nowhere
      const read = this.checks.message(data, this.name);
      if (!read.ok) this.broke(read.why);
      else if (read.value.kind === "rows") this.answered(read.value.rows);
      else if (read.value.kind === "refused") {
        this.error = read.value.error;
        ws.close();
      } else if (read.value.kind === "row") this.pushed(read.value.row);
      else if (read.value.kind === "removed") this.removed(read.value.id);
    });
    let refused = false;
    ws.on("unexpected-response", (_req, res) => {
      refused = true;
      this.error = `it answered HTTP ${res.statusCode}${res.statusCode === 401 ? ": its token in roost.json is not (or no longer) one of its tokens" : ""}`;
      ws.terminate();
    });
    ws.on("error", (err) => {
      if ((err as { code?: string }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" && this.ws === ws)
        this.broke(`it sent ${TOO_LARGE} at once`);
      else if (!refused) this.error = err.message; // else what it answered says more
    });
    ws.on("close", () => this.lost(ws));
  }

  /** Its answer to `subscribe`: its rows, all of them now (those it no longer has are removed). */
  private answered(rows: Sized[]): void {
    const before = this.rows;
    this.rows = new Map(rows.map((r) => [r.row.id, r]));
    this.bytes = rows.reduce((sum, r) => sum + r.bytes, 0);
    for (const id of before.keys()) if (!this.rows.has(id)) this.pushes.removed(qualified(this.name, id));
    this.reachable = true;
    this.error = null;
    this.backoff = 250;
    this.said();
  }

  /** A row it pushed: kept while its rows stay within LIMITS.remoteRows and LIMITS.remoteBytes. */
  private pushed(r: Sized): void {
    const id = r.row.id;
    const was = this.rows.get(id);
    const over =
      !was && this.rows.size >= LIMITS.remoteRows
        ? `it pushed more than ${LIMITS.remoteRows} rows`
        : this.bytes - (was?.bytes ?? 0) + r.bytes > LIMITS.remoteBytes
          ? `its rows came to ${TOO_LARGE} as JSON`
          : null;
    if (over) {
      this.broke(over);
      return;
    }
    this.bytes += r.bytes - (was?.bytes ?? 0);
    this.rows.set(id, r);
    this.pushes.row(qualified(this.name, id), () => this.shown(this.rows.get(id)?.row ?? r.row));
  }

  private removed(id: string): void {
    const was = this.rows.get(id);
    if (!was) return;
    this.bytes -= was.bytes;
    this.rows.delete(id);
    this.pushes.removed(qualified(this.name, id));
  }

  /** Whether it answers has changed: said to the hubs, and every row of it again (greyed or not). */
  private said(): void {
    this.pushes.remote(this.status());
    for (const [id, r] of this.rows)
      this.pushes.row(qualified(this.name, id), () => this.shown(this.rows.get(id)?.row ?? r.row));
  }

  /**
   * It sent what a daemon may not (`why`): its connection cut, its rows dropped (what it said is
   * not believed until it sends a valid list again), said in the log and in a `remote` push. It is
   * tried again as one that went away, at the longest wait: a remote that does it again costs one
   * bounded message per 2 s.
   */
  broke(what: string): string {
    // Its words (a field's name, an id) may hold anything: one line, bounded, no controls.
    const why = excerpt(what, LIMITS.error);
    if (this.closed) return why;
    console.error(
      `roost: the remote ${this.name} sent what a daemon may not: ${why}; its connection is ended and its rows dropped until it sends a valid list`,
    );
    const ws = this.ws;
    this.ws = null;
    ws?.terminate();
    this.reachable = false;
    this.error = `it sent what a daemon may not: ${why}`;
    this.dropRows();
    for (const t of this.terminals) t.end(`the remote ${this.name} sent what a daemon may not: ${why}`);
    this.pushes.remote(this.status());
    this.backoff = MAX_BACKOFF_MS;
    if (ws) this.retry();
    return why;
  }

  private lost(ws: WebSocket): void {
    if (this.ws !== ws) return;
    this.ws = null;
    // Closed: this daemon is stopping, or let the remote go (its `gone` is said): nothing to say.
    if (this.closed) return;
    const was = this.reachable;
    this.reachable = false;
    if (this.error === null) this.error = "the connection closed";
    if (was) this.said();
    this.retry();
  }

  private retry(): void {
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    this.timer = setTimeout(() => this.connect(), delay);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.terminate();
  }

  private dropRows(): void {
    for (const id of this.rows.keys()) this.pushes.removed(qualified(this.name, id));
    this.rows.clear();
    this.bytes = 0;
  }

  /** Let go (`remotes-reload`): closed, its rows removed from the hubs, its viewers told `why`. */
  forget(why: string): void {
    this.close();
    this.dropRows();
    for (const t of this.terminals) t.end(`the remote ${this.name} is no longer followed: ${why}`);
  }

  /**
   * One op of the remote's API, with its token: its result (checked against the op's), or its
   * refusal as ours (named). Its answer is read up to LIMITS.remoteBytes, no further.
   */
  async call(op: string, args: Record<string, unknown>): Promise<unknown> {
    let body: Read<unknown>;
    const abort = new AbortController();
    try {
      const res = await fetch(this.address(`api/${op}`), {
        method: "POST",
        headers: { ...this.headers, "content-type": "application/json" },
        body: JSON.stringify(args),
        signal: AbortSignal.any([abort.signal, AbortSignal.timeout(CALL_MS)]),
      });
      body = await readCapped(res, LIMITS.remoteBytes, () => abort.abort(), op);
    } catch (err) {
      throw this.unanswered(err);
    }
    const answer = body.ok ? this.checks.answer(op, body.value, this.name) : body;
    if (!answer.ok) throw this.refuse(answer.why);
    if (answer.value.ok) return answer.value.result;
    throw new RoostError(answer.value.code, `${this.name}: ${answer.value.error}`);
  }

  /** What it sent is refused (`why`): the remote cut off as `broke` says, the caller told `busy`. */
  refuse(what: string): RoostError {
    const why = this.broke(what);
    return new RoostError("busy", `the remote ${this.name} sent what a daemon may not: ${why}`);
  }

  unanswered(err: unknown): RoostError {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    return new RoostError(
      "busy",
      `the remote ${this.name} (${hideForms(this.config.url)}) did not answer (${cause}): try again once it does`,
    );
  }
}
