/**
 * `pi-roost/client`: a controller's client of the daemon (a hub, a script, the CLI): every hub op,
 * typed from the schema set; `subscribe` as an async iterator; a dropped connection made again on
 * the next call. Node builtins only.
 */
import os from "node:os";
import path from "node:path";
import { RoostError } from "../protocol/errors.js";
import type { OpArgs, OpName, OpResult, PushEvent, Row, WireEvent } from "../protocol/index.js";
import { SocketClient } from "./socket-client.js";

/** How long a call whose connection was lost waits for roost to come back (a restart), and is sent again. */
const RIDE_OUT_MS = 30_000;

/** Hub ops that are the same done twice: sent again after roost went away before it answered. */
const SAME_AGAIN: ReadonlySet<string> = new Set([
  "list",
  "events",
  "profiles",
  "whoami",
  "pending",
  "schedules",
  "schedule-when",
  "changes",
  "queue",
  "pin",
  "rename",
  "reorder",
]);

/** Whether a call may be sent again: one with a `requestId` (answered what the first made), or the same twice. */
function mayResend(op: string, args: unknown): boolean {
  const a = (args ?? {}) as Record<string, unknown>;
  if (typeof a.requestId === "string" && a.requestId !== "") return true;
  if (op === "task") return a.action === "list";
  return SAME_AGAIN.has(op);
}

export interface DaemonClientOptions {
  /** The daemon's socket: ROOST_SOCKET, else $ROOST_HOME/roost.sock, else ~/.roost/roost.sock. */
  socket?: string;
  /** How many times a call tries to connect again after the connection dropped (default 5). */
  retries?: number;
}

/** What a subscription yields: the rows as they are (first, and again after a reconnect), then pushes. */
export type Subscribed = { event: "rows"; rows: Row[] } | PushEvent;

export function defaultSocket(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ROOST_SOCKET) return env.ROOST_SOCKET;
  return path.join(env.ROOST_HOME || path.join(os.homedir(), ".roost"), "roost.sock");
}

export class DaemonClient {
  private conn: SocketClient | null = null;
  private connecting: Promise<SocketClient> | null = null;
  readonly socket: string;
  private readonly retries: number;

  constructor(opts: DaemonClientOptions = {}) {
    this.socket = opts.socket ?? defaultSocket();
    this.retries = opts.retries ?? 5;
  }

  /**
   * Any op, by name; rejects with a RoostError carrying the wire's code. Should roost go away
   * before it answers (a restart), a call that may be sent again (a `dispatch` or `reply` with a
   * `requestId`, a read) waits for it, up to 30 s, and is sent again with the same args.
   */
  async call<K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K>> {
    let lostAt: number | null = null;
    for (;;) {
      try {
        return await (await this.connection()).call(op, args);
      } catch (err) {
        if ((err as { lost?: boolean }).lost) lostAt ??= Date.now();
        // Lost once: a connection refused meanwhile is roost starting again, waited for too.
        if (lostAt === null || !mayResend(op, args) || Date.now() - lostAt > RIDE_OUT_MS) throw err;
        if (!(err as { lost?: boolean }).lost) await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  list(id?: string) {
    return this.call("list", id === undefined ? {} : { id });
  }
  dispatch(args: OpArgs<"dispatch">) {
    return this.call("dispatch", args);
  }
  reply(args: OpArgs<"reply">) {
    return this.call("reply", args);
  }
  stop(id: string) {
    return this.call("stop", { id });
  }
  rm(id: string) {
    return this.call("rm", { id });
  }
  respawn(id: string) {
    return this.call("respawn", { id });
  }
  pin(id: string, pinned = true) {
    return this.call("pin", { id, pinned });
  }
  rename(id: string, name: string) {
    return this.call("rename", { id, name });
  }
  reorder(ids: string[]) {
    return this.call("reorder", { ids });
  }
  events(args: OpArgs<"events"> = {}) {
    return this.call("events", args);
  }
  /** A job's conversation as its agent streamed it (protocol.md, "The conversation"). */
  conversation(id: string, args: Omit<OpArgs<"conversation">, "id"> = {}) {
    return this.call("conversation", { id, ...args });
  }
  input(id: string, data: string) {
    return this.call("input", { id, data });
  }
  resize(id: string, cols: number, rows: number) {
    return this.call("resize", { id, cols, rows });
  }
  shutdown() {
    return this.call("shutdown", {});
  }
  profiles() {
    return this.call("profiles", {});
  }
  whoami() {
    return this.call("whoami", {});
  }
  /** The task board (docs/protocol.md, "The task board"): the user's actions on it. */
  task(args: OpArgs<"task">) {
    return this.call("task", args);
  }
  /** Schedules (docs/protocol.md, "Schedules"): launches on a clock. */
  schedules() {
    return this.call("schedules", {});
  }
  scheduleAdd(args: OpArgs<"schedule-add">) {
    return this.call("schedule-add", args);
  }
  scheduleRm(id: string) {
    return this.call("schedule-rm", { id });
  }
  schedulePause(id: string, paused = true) {
    return this.call("schedule-pause", { id, paused });
  }
  scheduleRun(id: string) {
    return this.call("schedule-run", { id });
  }
  /** A `when` read and its next runs, saved nowhere. */
  scheduleWhen(when: string, count?: number) {
    return this.call("schedule-when", count === undefined ? { when } : { when, count });
  }
  /** The merge queue (docs/protocol.md, "The merge queue"): jobs' branches landed one at a time. */
  queueAdd(args: OpArgs<"queue-add">) {
    return this.call("queue-add", args);
  }
  queue() {
    return this.call("queue", {});
  }
  queueCancel(n: number) {
    return this.call("queue-cancel", { n });
  }
  /** A job's own budget set (docs/protocol.md, "Budgets"): what is given replaces that part of it. */
  budget(args: OpArgs<"budget">) {
    return this.call("budget", args);
  }
  /** What was spent, a day at a time (`days` back, today included), and roost.json's budgets. */
  spend(days?: number) {
    return this.call("spend", days === undefined ? {} : { days });
  }
  /** The concierge (docs/protocol.md, "The concierge"): on, off, status, its policy, undo. */
  concierge(args: OpArgs<"concierge">) {
    return this.call("concierge", args);
  }
  /** The user's words to the concierge. */
  conciergeAsk(text: string) {
    return this.call("concierge-ask", { text });
  }
  /** Standing orders: list, add, rm. */
  conciergeOrder(args: OpArgs<"concierge-order">) {
    return this.call("concierge-order", args);
  }
  /** A worktree job's diff against its base (docs/worktrees.md); `stat` alone leaves out the unified diff. */
  changes(id: string, stat?: boolean) {
    return this.call("changes", stat === undefined ? { id } : { id, stat });
  }
  /** A worktree job's branch merged into its base branch (or `into`), locally. */
  merge(args: OpArgs<"merge">) {
    return this.call("merge", args);
  }
  /** roost.json's remotes read again and followed from now on (the owner's socket only): see docs/fleet.md. */
  remotesReload() {
    return this.call("remotes-reload", {});
  }
  /** A test event sent once to each of roost.json's notify hooks (the owner's socket only): see docs/notify.md. */
  notifyTest() {
    return this.call("notify-test", {});
  }
  /** HTTP tokens and login links (the owner's socket only): see docs/http.md. */
  token(args: OpArgs<"token">) {
    return this.call("token", args);
  }

  /**
   * The daemon's pushes, on a connection of their own: `{event: "rows"}` first, then `row`,
   * `removed`, `feed`, `board`, `schedule` and `concierge` events; after a dropped connection, made again (with backoff), the rows
   * come again. `return()` (or a `break` out of `for await`) ends it.
   */
  subscribe(): AsyncIterableIterator<Subscribed> {
    const queue: Subscribed[] = [];
    let wake: (() => void) | null = null;
    let conn: SocketClient | null = null;
    let done = false;
    const push = (e: Subscribed) => {
      queue.push(e);
      wake?.();
    };
    const open = async (delay: number): Promise<void> => {
      while (!done) {
        try {
          const c = await SocketClient.connect(this.socket);
          if (done) return c.close();
          conn = c;
          c.onEvent = (e: WireEvent) => {
            if (
              e.event === "row" ||
              e.event === "removed" ||
              e.event === "feed" ||
              e.event === "board" ||
              e.event === "schedule" ||
              e.event === "concierge"
            )
              push(e);
          };
          c.onClose = () => {
            if (!done) void open(100);
          };
          const { rows } = await c.call("subscribe", {});
          push({ event: "rows", rows });
          return;
        } catch {
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, 5000);
        }
      }
    };
    void open(100);
    const iterator: AsyncIterableIterator<Subscribed> = {
      next: async () => {
        while (!done && queue.length === 0) {
          await new Promise<void>((r) => {
            wake = r;
          });
        }
        wake = null;
        const value = queue.shift();
        return value === undefined ? { done: true, value: undefined } : { done: false, value };
      },
      return: async () => {
        done = true;
        (conn as SocketClient | null)?.close();
        wake?.();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  close(): void {
    this.conn?.close();
    this.conn = null;
  }

  /** The open connection, or a new one (tried again with backoff while the daemon restarts). */
  private async connection(): Promise<SocketClient> {
    if (this.conn) return this.conn;
    this.connecting ??= (async () => {
      let delay = 100;
      for (let attempt = 0; ; attempt++) {
        try {
          const c = await SocketClient.connect(this.socket);
          c.onClose = () => {
            if (this.conn === c) this.conn = null;
          };
          this.conn = c;
          return c;
        } catch (err) {
          if (attempt >= this.retries) {
            throw new RoostError(
              "busy",
              `roost is not answering on ${this.socket}: ${(err as Error).message}`,
            );
          }
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, 2000);
        }
      }
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }
}
