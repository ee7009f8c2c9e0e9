/**
 * The merge queue's entries as the page knows them (docs/protocol.md, "The merge queue"): loaded
 * with `queue` at first and after each reconnection (pushes missed while away), then kept by the
 * `queue` pushes. One for the page: the nav's count and the queue's page read the same entries.
 */
import { QUEUE_ENDED } from "../../sdk/ts/protocol/queue-states.js";
import { get, type QueueEntry } from "./api.js";
import { type Ctx, onePerPage } from "./ctx.js";

export class QueueStore {
  readonly entries = new Map<number, QueueEntry>();
  /** Why the last load failed, in words; null once loaded. */
  error: string | null = null;
  loaded = false;
  private readonly listeners = new Set<() => void>();

  constructor(ctx: Ctx) {
    ctx.live.onQueue((entry) => this.put(entry));
    ctx.live.onConnect((again) => {
      if (again) void this.load();
    });
    void this.load();
  }

  /** Every entry, by number (the order they land in). */
  sorted(): QueueEntry[] {
    return [...this.entries.values()].sort((a, b) => a.n - b.n);
  }

  /** The entries not ended: queued, or being merged, checked or landed. */
  waiting(): number {
    let n = 0;
    for (const e of this.entries.values()) if (!QUEUE_ENDED.has(e.state)) n++;
    return n;
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** An entry as an op answered it (queue-add, queue-cancel): shown before its push arrives. */
  put(entry: QueueEntry): void {
    this.entries.set(entry.n, entry);
    this.changed();
  }

  private async load(): Promise<void> {
    try {
      const { entries } = await get<{ entries: QueueEntry[] }>("queue");
      this.entries.clear();
      for (const e of entries) this.entries.set(e.n, e);
      this.error = null;
    } catch (err) {
      this.error = (err as Error).message;
    }
    this.loaded = true;
    this.changed();
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}

/** The page's one store, made when first asked for. */
export const queueStore = onePerPage((ctx) => new QueueStore(ctx));
