/**
 * Other daemons, seen from this one (roost.json's `remotes`; docs/fleet.md). Each remote is
 * followed over its own HTTP API with the token roost.json keeps for it: its `/api/subscribe`
 * WebSocket gives its rows, which this daemon's hubs get among its own (`daemon` their remote's
 * name, their ids `name:id`, `reachable` false while it does not answer). What a hub does to such
 * a row is sent on by this daemon (`route`), so that a browser never holds a remote's token: the
 * op with the job's own id, over HTTP; a terminal (`attach`) relayed over the remote's terminal
 * WebSocket, its input and sizes sent back the same way.
 *
 * A remote that goes away is tried again, 250 ms doubling to 2 s, for as long as this daemon runs:
 * its rows stay, greyed, and come back live when it answers again.
 *
 * What a remote sends is input (core/remote-input.ts): checked against the schema set and bounded
 * before it is kept or relayed. One that sends what a daemon may not is cut off, said (logged, and
 * a `remote` push with why), its rows dropped until it sends a valid list again: the rest of the
 * list, this daemon's and the other remotes', never fails because of one remote.
 */
import WebSocket from "ws";
import { LIMITS, type RemoteStatus, RoostError, type Row } from "../../sdk/ts/protocol/index.js";
import { hideForms } from "../secrets.js";
import type { Pushes } from "./pushes.js";
import { type Read, RemoteChecks, readCapped, type Sized, TOO_LARGE } from "./remote-input.js";
import { excerpt } from "./text.js";

export interface RemoteConfig {
  name: string;
  url: string;
  token: string;
}

/** Who asks: a hub's caller, with its pushes when it stays open (a terminal's viewer). */
export interface RouteCaller {
  push?: (event: never) => void;
  onClose?: (cleanup: () => void) => void;
}

/** The hub's ops that name a job: sent on to the remote whose job it is. */
const ROUTED: readonly string[] = [
  "list",
  "stop",
  "rm",
  "respawn",
  "pin",
  "rename",
  "reply",
  "pending",
  "attach",
  "detach",
  "input",
  "resize",
];
const MAX_BACKOFF_MS = 2000;
/** How long a call to a remote may take before it is said not to answer. */
const CALL_MS = 15000;

/** A remote's id for its job, and the name it goes by here: `name:id`. */
const qualified = (name: string, id: string) => `${name}:${id}`;

export class Remotes {
  private readonly links = new Map<string, RemoteLink>();
  /** Each viewer's relayed terminals, by the job's id here. */
  private readonly terminals = new WeakMap<object, Map<string, RemoteTerminal>>();
  private started = false;
  private readonly checks = new RemoteChecks(ROUTED);

  /** `reread`: roost.json's remotes as they are now (for `remotes-reload`); throws what is wrong with it. */
  constructor(
    private readonly pushes: Pushes,
    configs: readonly RemoteConfig[],
    private readonly reread: () => readonly RemoteConfig[],
  ) {
    for (const c of configs) this.links.set(c.name, new RemoteLink(c, pushes, this.checks));
  }

  get any(): boolean {
    return this.links.size > 0;
  }

  start(): void {
    this.started = true;
    for (const link of this.links.values()) link.connect();
  }

  /**
   * `remotes-reload`: roost.json's remotes read again, so that `roost remote add` and `rm` take
   * effect without a restart. A remote gone from it, or whose url or token changed, is let go: its
   * rows removed from the hubs, its relayed terminals ended, a `remote` push with `gone`. A new one
   * (or the changed one again) is followed from now on. A roost.json that does not read changes
   * nothing: `bad_request` saying what is wrong with it.
   */
  reload(): { remotes: RemoteStatus[] } {
    let configs: readonly RemoteConfig[];
    try {
      configs = this.reread();
    } catch (err) {
      throw new RoostError(
        "bad_request",
        `${(err as Error).message} (the remotes followed are as they were: fix it, then reload)`,
      );
    }
    const wanted = new Map(configs.map((c) => [c.name, c]));
    for (const [name, link] of this.links) {
      const now = wanted.get(name);
      if (now && now.url === link.config.url && now.token === link.config.token) continue;
      this.links.delete(name);
      link.forget(now ? "its url or token changed in roost.json" : "it was removed from roost.json");
      if (!now) this.pushes.remote({ ...link.status(), gone: true });
    }
    for (const c of configs) {
      if (this.links.has(c.name)) continue;
      const link = new RemoteLink(c, this.pushes, this.checks);
      this.links.set(c.name, link);
      this.pushes.remote(link.status());
      if (this.started) link.connect();
    }
    return { remotes: this.status() };
  }

  close(): void {
    for (const link of this.links.values()) link.close();
  }

  /** Every remote's rows, as this daemon's hubs see them. */
  rows(): Row[] {
    return [...this.links.values()].flatMap((link) => link.shownRows());
  }

  status(): RemoteStatus[] {
    return [...this.links.values()].map((link) => link.status());
  }

  /**
   * A hub's op about another daemon's job (`args.id` is `name:id`), sent on to it: its answer, or
   * null for an op this daemon answers itself. An id `name:id` where no remote is named `name` is
   * `not_found`, saying which remotes there are.
   */
  route(caller: RouteCaller, op: string, args: Record<string, unknown>): Promise<unknown> | null {
    const id = args.id;
    if (!ROUTED.includes(op) || typeof id !== "string") return null;
    const at = id.indexOf(":");
    if (at < 0) return null;
    const link = this.links.get(id.slice(0, at));
    if (!link) {
      const names = [...this.links.keys()];
      throw new RoostError(
        "not_found",
        `no job ${id}: no remote is named ${JSON.stringify(id.slice(0, at))} (${names.length ? `roost.json's remotes: ${names.join(", ")}` : "roost.json names none"})`,
      );
    }
    const theirs = { ...args, id: id.slice(at + 1) };
    const viewing = this.terminals.get(caller)?.get(id);
    if (op === "attach") return this.attach(caller, link, theirs.id, id);
    if (op === "detach") {
      viewing?.close();
      return Promise.resolve({});
    }
    if ((op === "input" || op === "resize") && viewing) {
      viewing.send(op, theirs);
      return Promise.resolve({});
    }
    return link.call(op, theirs).then((result) => link.ours(result as { rows?: Row[]; job?: Row }));
  }

  /** A terminal of the remote's, relayed to this viewer until it detaches, goes, or the job ends. */
  private async attach(
    caller: RouteCaller,
    link: RemoteLink,
    theirs: string,
    ours: string,
  ): Promise<unknown> {
    const mine = this.terminals.get(caller) ?? new Map<string, RemoteTerminal>();
    this.terminals.set(caller, mine);
    mine.get(ours)?.close();
    const terminal = new RemoteTerminal(link, theirs, ours, (e) => caller.push?.(e as never));
    mine.set(ours, terminal);
    terminal.onEnd(() => {
      if (mine.get(ours) === terminal) mine.delete(ours);
    });
    caller.onClose?.(() => terminal.close());
    return terminal.opened;
  }
}

/** One remote: its rows as it pushes them (checked), whether it answers, and calls to its API. */
class RemoteLink {
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

/**
 * A job's terminal on a remote, for one viewer here: the remote's terminal WebSocket, whose answer
 * is `attach`'s and whose `output` and `detached` events go to the viewer with the job's id here.
 */
class RemoteTerminal {
  readonly opened: Promise<unknown>;
  private readonly ws: WebSocket;
  private ended = false;
  /** Its `attach` was answered: the viewer is told when it ends. */
  private attached = false;
  private readonly ends: (() => void)[] = [];

  constructor(
    link: RemoteLink,
    theirs: string,
    private readonly ours: string,
    private readonly push: (e: object) => void,
  ) {
    this.ws = link.open(`api/jobs/${encodeURIComponent(theirs)}/terminal`);
    link.terminals.add(this);
    this.ends.push(() => link.terminals.delete(this));
    let answered = false;
    this.opened = new Promise((resolve, reject) => {
      this.ws.on("message", (data: Buffer) => {
        if (this.ended) return;
        const first = !answered;
        answered = true;
        const read = link.checks.terminal(data, first, link.name);
        if (!read.ok) {
          // Refused as any message of the remote's is (`broke`), which ends this terminal too.
          const refused = link.refuse(read.why);
          if (first) reject(refused);
          return;
        }
        const msg = read.value;
        if (msg.kind === "attached") {
          if (msg.answer.ok) {
            this.attached = true;
            resolve(msg.answer.result);
          } else reject(new RoostError(msg.answer.code, `${link.name}: ${msg.answer.error}`));
        } else if (msg.kind === "output") this.push({ event: "output", id: this.ours, data: msg.data });
        else if (msg.kind === "detached") this.end(msg.why);
        // Else a refusal of input or a size: the viewer's keys went nowhere; nothing to answer.
      });
      this.ws.on("error", (err) => {
        if ((err as { code?: string }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" && !this.ended) {
          const refused = link.refuse(`its terminal sent ${TOO_LARGE} at once`);
          if (!answered) reject(refused);
          answered = true;
        } else if (!answered) {
          answered = true;
          reject(link.unanswered(err));
        }
      });
      this.ws.on("close", () => {
        if (!answered) {
          answered = true;
          reject(link.unanswered(new Error("the connection closed")));
        }
        this.end(`the remote ${link.name} stopped answering`);
      });
    });
    this.opened.catch(() => {});
  }

  send(op: "input" | "resize", args: Record<string, unknown>): void {
    const { id: _id, ...rest } = args;
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify({ op, args: rest }));
  }

  onEnd(fn: () => void): void {
    this.ends.push(fn);
  }

  /** The job ended, or the remote went: the viewer is told, once. */
  end(why: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.attached) this.push({ event: "detached", id: this.ours, why });
    this.finish();
  }

  /** The viewer detached or went: nothing more is said to it. */
  close(): void {
    this.ended = true;
    this.finish();
  }

  private finish(): void {
    this.ws.close();
    for (const fn of this.ends.splice(0)) fn();
  }
}
