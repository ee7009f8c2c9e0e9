/**
 * The page's live state: the rows, the feed and the task board's counts, pushed over
 * `/api/subscribe` (the board's tasks: board-state.ts), and the schedules' and the merge queue's
 * changes handed on to what shows them. Nothing polls. When
 * the socket closes (the daemon restarting), it reconnects by itself: 250 ms, doubling, at most 2 s.
 */
import {
  type BoardCounts,
  type ConciergeStatus,
  type FeedEntry,
  get,
  type Message,
  onMessages,
  type QueueEntry,
  type RemoteStatus,
  type Row,
  type ScheduleEvent,
  wsUrl,
} from "./api.js";

export type Connection = "connecting" | "live" | "disconnected" | "unauthorized";

/** `row`: the change is that row's push alone; absent, anything else (a row removed, every row afresh…). */
type Listener = (row?: string) => void;

export interface RowChange {
  before: Row | undefined;
  after: Row;
}

const MAX_BACKOFF_MS = 2000;

export class Live {
  rows = new Map<string, Row>();
  /** The other daemons whose rows come with this one's (docs/fleet.md), by name: whether each answers. */
  remotes = new Map<string, RemoteStatus>();
  /** The concierge's status, once loaded (main.ts) or pushed. */
  concierge: ConciergeStatus | null = null;
  /** Feed entries seen live since the page opened, oldest first. */
  feed: FeedEntry[] = [];
  connection: Connection = "connecting";
  /** When the next attempt is due (disconnected). */
  retryAt = 0;
  private ws: WebSocket | null = null;
  private backoff = 250;
  private timer: number | undefined;
  private everLive = false;
  private readonly listeners = new Set<Listener>();
  private readonly rowListeners = new Set<(c: RowChange) => void>();
  private readonly feedListeners = new Set<(e: FeedEntry) => void>();
  private readonly boardListeners = new Set<(counts: BoardCounts) => void>();
  private readonly scheduleListeners = new Set<(e: ScheduleEvent) => void>();
  private readonly queueListeners = new Set<(entry: QueueEntry) => void>();
  private readonly conciergeListeners = new Set<(s: ConciergeStatus) => void>();
  private readonly connectedListeners = new Set<(again: boolean) => void>();
  private readonly conversationListeners = new Set<(id: string, last: number) => void>();

  start(): void {
    this.connect();
  }

  /** Rows as shown: pinned first, then the user's order. */
  sorted(): Row[] {
    return [...this.rows.values()].sort(
      (a, b) => Number(b.pinned) - Number(a.pinned) || a.order - b.order || a.id.localeCompare(b.id),
    );
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  onRow(fn: (c: RowChange) => void): () => void {
    this.rowListeners.add(fn);
    return () => this.rowListeners.delete(fn);
  }

  /** After each connection (`again`: a reconnection): what was missed while away can be fetched again. */
  onConnect(fn: (again: boolean) => void): () => void {
    this.connectedListeners.add(fn);
    return () => this.connectedListeners.delete(fn);
  }

  onFeed(fn: (e: FeedEntry) => void): () => void {
    this.feedListeners.add(fn);
    return () => this.feedListeners.delete(fn);
  }

  /** Each `board` push: the task board changed, its counts as they are now. */
  onBoard(fn: (counts: BoardCounts) => void): () => void {
    this.boardListeners.add(fn);
    return () => this.boardListeners.delete(fn);
  }

  /** A schedule added, changed or run (`schedule` null: removed). */
  onSchedule(fn: (e: ScheduleEvent) => void): () => void {
    this.scheduleListeners.add(fn);
    return () => this.scheduleListeners.delete(fn);
  }

  /** A merge queue's entry queued or changed (queue-store.ts keeps them). */
  onQueue(fn: (entry: QueueEntry) => void): () => void {
    this.queueListeners.add(fn);
    return () => this.queueListeners.delete(fn);
  }

  /** The concierge's status changed (on, off, its policy, its answer, its orders, a need). */
  onConcierge(fn: (s: ConciergeStatus) => void): () => void {
    this.conciergeListeners.add(fn);
    return () => this.conciergeListeners.delete(fn);
  }

  /** A job's conversation grew (`last`: its newest entry's number): a page showing it reads what is new. */
  onConversation(fn: (id: string, last: number) => void): () => void {
    this.conversationListeners.add(fn);
    return () => this.conversationListeners.delete(fn);
  }

  /** Retry now (the "reconnect" button). */
  retryNow(): void {
    if (this.connection === "live" || this.ws) return;
    window.clearTimeout(this.timer);
    this.connect();
  }

  private changed(row?: string): void {
    for (const fn of this.listeners) fn(row);
  }

  private connect(): void {
    this.timer = undefined;
    let ws: WebSocket;
    try {
      ws = new WebSocket(wsUrl("subscribe"));
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    onMessages(
      ws,
      (msg) => this.answered(ws, msg),
      (msg) => this.pushed(msg),
    );
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.scheduleRetry();
    };
  }

  /** The subscription's answer: every row, afresh. */
  private answered(ws: WebSocket, msg: Message): void {
    if (msg.ok !== true) {
      ws.close();
      return;
    }
    const { rows, remotes = [] } = msg.result as { rows: Row[]; remotes?: RemoteStatus[] };
    this.remotes = new Map(remotes.map((r) => [r.name, r]));
    const before = this.rows;
    this.rows = new Map(rows.map((r) => [r.id, r]));
    const again = this.everLive;
    this.connection = "live";
    this.backoff = 250;
    this.everLive = true;
    for (const fn of this.connectedListeners) fn(again);
    for (const r of rows) this.emitRow({ before: before.get(r.id), after: r });
    this.changed();
  }

  /** A change pushed: a row, a row gone, a feed entry, the board's counts, a schedule. */
  private pushed(msg: Message): void {
    if (msg.event === "row") {
      const row = msg.row as Row;
      const before = this.rows.get(row.id);
      this.rows.set(row.id, row);
      this.emitRow({ before, after: row });
      this.changed(row.id);
    } else if (msg.event === "removed") {
      this.rows.delete(msg.id as string);
      this.changed();
    } else if (msg.event === "feed") {
      const entry = msg.entry as FeedEntry;
      this.feed.push(entry);
      if (this.feed.length > 1000) this.feed.splice(0, this.feed.length - 1000);
      for (const fn of this.feedListeners) fn(entry);
    } else if (msg.event === "board") {
      const { open, claimed, blocked, done } = msg as unknown as BoardCounts;
      for (const fn of this.boardListeners) fn({ open, claimed, blocked, done });
    } else if (msg.event === "remote") {
      // A remote stopped answering or answers again: its rows follow, greyed or not, as `row`s.
      // One let go (`gone`: removed from roost.json) is forgotten; its rows are `removed` already.
      const {
        event: _event,
        gone,
        ...status
      } = msg as unknown as RemoteStatus & {
        event: string;
        gone?: true;
      };
      if (gone) this.remotes.delete(status.name);
      else this.remotes.set(status.name, status);
      this.changed();
    } else if (msg.event === "schedule") {
      for (const fn of this.scheduleListeners) fn(msg as unknown as ScheduleEvent);
    } else if (msg.event === "queue") {
      for (const fn of this.queueListeners) fn(msg.entry as QueueEntry);
    } else if (msg.event === "concierge") this.setConcierge(msg.status as ConciergeStatus);
    else if (msg.event === "conversation")
      for (const fn of this.conversationListeners) fn(msg.id as string, msg.last as number);
  }

  /** The concierge's status, pushed or loaded: its listeners told, the header drawn again. */
  setConcierge(status: ConciergeStatus): void {
    this.concierge = status;
    for (const fn of this.conciergeListeners) fn(status);
    this.changed();
  }

  private emitRow(change: RowChange): void {
    for (const fn of this.rowListeners) fn(change);
  }

  private scheduleRetry(): void {
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    this.retryAt = Date.now() + delay;
    if (this.connection !== "unauthorized") this.connection = "disconnected";
    this.timer = window.setTimeout(() => this.connect(), delay);
    this.changed();
    // A refused upgrade looks like any closed socket: ask whether the login is still good.
    if (this.everLive || this.backoff >= MAX_BACKOFF_MS) {
      get("whoami").catch((err: { status?: number }) => {
        if (err.status === 401 && this.connection !== "live") {
          this.connection = "unauthorized";
          this.changed();
        }
      });
    }
  }
}
