/**
 * Pushes to subscribers (docs/protocol.md, `subscribe`): `row`, `removed`, `feed`, `board`,
 * `schedule`, `concierge`, `conversation`. Row, board and conversation pushes are coalesced: a job
 * (or the task board) that changes many times in one turn of the event loop is pushed once, as it
 * is then.
 */
import type {
  BoardCounts,
  ConciergeStatus,
  FeedEntry,
  PushEvent,
  QueueEntry,
  RemoteStatus,
  Row,
  Schedule,
} from "../../sdk/ts/protocol/index.js";

export type Listener = (event: PushEvent) => void;

export class Pushes {
  private readonly listeners = new Set<Listener>();
  private readonly dirty = new Map<string, () => Row>();
  private boardCounts: (() => BoardCounts) | null = null;
  /** The jobs whose conversation grew this turn: their last entry's `n`. */
  private readonly conversations = new Map<string, number>();
  private scheduled = false;

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  /** A job's row changed: pushed once, on the next turn, as it is then. */
  row(id: string, build: () => Row): void {
    this.dirty.set(id, build);
    this.flushSoon();
  }

  private flushSoon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** The task board changed: its counts pushed once, on the next turn, as they are then. */
  board(counts: () => BoardCounts): void {
    this.boardCounts = counts;
    this.flushSoon();
  }

  /** A job's conversation grew: said once, on the next turn (the hub reads what is new). */
  conversation(id: string, last: number): void {
    this.conversations.set(id, last);
    this.flushSoon();
  }

  removed(id: string): void {
    this.dirty.delete(id);
    this.emit({ event: "removed", id });
  }

  feed(entry: FeedEntry): void {
    this.emit({ event: "feed", entry });
  }

  /**
   * A remote daemon became reachable or stopped answering, or was added or let go (`gone`) by
   * `remotes-reload` (server/fleet/remotes.ts). Rare: pushed as it comes.
   */
  remote(status: RemoteStatus & { gone?: true }): void {
    this.emit({ event: "remote", ...status });
  }

  /** A schedule added or changed (null: removed). Rare: pushed as it comes. */
  schedule(id: string, schedule: Schedule | null): void {
    this.emit({ event: "schedule", id, schedule });
  }

  /** A merge queue's entry changed (core/queue/queue.ts): pushed as it comes. */
  queue(entry: QueueEntry): void {
    this.emit({ event: "queue", entry });
  }

  /** The concierge's status changed (core/concierge/concierge.ts): rare, pushed as it comes. */
  concierge(status: ConciergeStatus): void {
    this.emit({ event: "concierge", status });
  }

  private flush(): void {
    this.scheduled = false;
    const dirty = [...this.dirty.values()];
    this.dirty.clear();
    const counts = this.boardCounts;
    this.boardCounts = null;
    const conversations = [...this.conversations];
    this.conversations.clear();
    if (this.listeners.size === 0) return;
    for (const build of dirty) this.emit({ event: "row", row: build() });
    if (counts) this.emit({ event: "board", ...counts() });
    for (const [id, last] of conversations) this.emit({ event: "conversation", id, last });
  }

  private emit(event: PushEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
