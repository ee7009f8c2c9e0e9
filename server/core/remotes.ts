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
 */
import WebSocket from "ws";
import {
  isErrorCode,
  type PushEvent,
  type RemoteStatus,
  RoostError,
  type Row,
} from "../../sdk/ts/protocol/index.js";
import { hideForms } from "../secrets.js";
import type { Pushes } from "./pushes.js";

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

  /** `reread`: roost.json's remotes as they are now (for `remotes-reload`); throws what is wrong with it. */
  constructor(
    private readonly pushes: Pushes,
    configs: readonly RemoteConfig[],
    private readonly reread: () => readonly RemoteConfig[],
  ) {
    for (const c of configs) this.links.set(c.name, new RemoteLink(c, pushes));
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
      const link = new RemoteLink(c, this.pushes);
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
    return link.call(op, theirs).then((result) => link.ours(result));
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

/** One remote: its rows as it pushes them, whether it answers, and calls to its API. */
class RemoteLink {
  private rows = new Map<string, Row>();
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

  /** As every hub sees it, read-only ones too: a secret its url holds (`?token=`, `user:pw@`) left out. */
  status(): RemoteStatus {
    const error = this.error === null ? null : hideForms(this.error);
    return { name: this.name, url: hideForms(this.config.url), reachable: this.reachable, error };
  }

  shownRows(): Row[] {
    return [...this.rows.values()].map((r) => this.shown(r));
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

  /** An answer of the remote's, its rows (`rows`, `job`) as this daemon's hubs see them. */
  ours(result: unknown): unknown {
    if (!result || typeof result !== "object") return result;
    const r = result as { rows?: Row[]; job?: Row };
    return {
      ...r,
      ...(r.rows ? { rows: r.rows.map((x) => this.shown(x)) } : {}),
      ...(r.job ? { job: this.shown(r.job) } : {}),
    };
  }

  connect(): void {
    this.timer = null;
    if (this.closed) return;
    const ws = new WebSocket(this.address("api/subscribe", true), { headers: this.headers });
    this.ws = ws;
    ws.on("message", (data) => {
      let msg: { ok?: boolean; error?: string; result?: { rows: Row[] } } & Partial<PushEvent>;
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      if ("ok" in msg) this.answered(msg);
      else this.pushed(msg as PushEvent);
    });
    let refused = false;
    ws.on("unexpected-response", (_req, res) => {
      refused = true;
      this.error = `it answered HTTP ${res.statusCode}${res.statusCode === 401 ? ": its token in roost.json is not (or no longer) one of its tokens" : ""}`;
      ws.terminate();
    });
    ws.on("error", (err) => {
      if (!refused) this.error = err.message; // else what it answered says more
    });
    ws.on("close", () => this.lost(ws));
  }

  private answered(msg: { ok?: boolean; error?: string; result?: { rows: Row[] } }): void {
    if (!msg.ok || !msg.result) {
      this.error = msg.error ?? "it refused to subscribe";
      this.ws?.close();
      return;
    }
    const before = this.rows;
    this.rows = new Map(msg.result.rows.map((r) => [r.id, r]));
    for (const id of before.keys()) if (!this.rows.has(id)) this.pushes.removed(qualified(this.name, id));
    this.reachable = true;
    this.error = null;
    this.backoff = 250;
    this.said();
  }

  private pushed(e: PushEvent): void {
    if (e.event === "row") {
      this.rows.set(e.row.id, e.row);
      const id = e.row.id;
      this.pushes.row(qualified(this.name, id), () => this.shown(this.rows.get(id) ?? e.row));
    } else if (e.event === "removed") {
      this.rows.delete(e.id);
      this.pushes.removed(qualified(this.name, e.id));
    }
  }

  /** Whether it answers has changed: said to the hubs, and every row of it again (greyed or not). */
  private said(): void {
    this.pushes.remote(this.status());
    for (const [id, r] of this.rows)
      this.pushes.row(qualified(this.name, id), () => this.shown(this.rows.get(id) ?? r));
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

  /** Let go (`remotes-reload`): closed, its rows removed from the hubs, its viewers told `why`. */
  forget(why: string): void {
    this.close();
    for (const id of this.rows.keys()) this.pushes.removed(qualified(this.name, id));
    this.rows.clear();
    for (const t of this.terminals) t.end(`the remote ${this.name} is no longer followed: ${why}`);
  }

  /** One op of the remote's API, with its token: its result, or its refusal as ours (named). */
  async call(op: string, args: Record<string, unknown>): Promise<unknown> {
    let body: { ok?: boolean; result?: unknown; error?: string; code?: string };
    try {
      const res = await fetch(this.address(`api/${op}`), {
        method: "POST",
        headers: { ...this.headers, "content-type": "application/json" },
        body: JSON.stringify(args),
        signal: AbortSignal.timeout(CALL_MS),
      });
      body = (await res.json()) as typeof body;
    } catch (err) {
      throw this.unanswered(err);
    }
    if (body.ok) return body.result;
    throw new RoostError(
      isErrorCode(body.code) ? body.code : "busy",
      `${this.name}: ${body.error ?? "refused"}`,
    );
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
    this.ws = new WebSocket(link.address(`api/jobs/${encodeURIComponent(theirs)}/terminal`, true), {
      headers: link.headers,
    });
    link.terminals.add(this);
    this.ends.push(() => link.terminals.delete(this));
    let answered = false;
    this.opened = new Promise((resolve, reject) => {
      this.ws.on("message", (data) => {
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(String(data));
        } catch {
          return;
        }
        if (!answered) {
          answered = true;
          if (msg.ok) {
            this.attached = true;
            resolve(msg.result);
          } else {
            const code = isErrorCode(msg.code) ? msg.code : "busy";
            reject(new RoostError(code, `${link.name}: ${msg.error}`));
          }
          return;
        }
        if (msg.event === "output") this.push({ ...msg, id: this.ours });
        else if (msg.event === "detached") this.end(`${msg.why}`);
        // Else a refusal of input or a size: the viewer's keys went nowhere; nothing to answer.
      });
      this.ws.on("error", (err) => {
        if (!answered) {
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
