/**
 * Pushes to subscribers (control-plane.md, `subscribe`): `row`, `removed`, `feed`, `schedule`. Row
 * pushes are coalesced: a job that changes many times in one turn of the event loop is pushed once.
 */
import type { FeedEntry, PushEvent, Row, Schedule } from "../../sdk/ts/protocol/index.js";

export type Listener = (event: PushEvent) => void;

export class Pushes {
  private readonly listeners = new Set<Listener>();
  private readonly dirty = new Map<string, () => Row>();
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
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flushRows());
    }
  }

  removed(id: string): void {
    this.dirty.delete(id);
    this.emit({ event: "removed", id });
  }

  feed(entry: FeedEntry): void {
    this.emit({ event: "feed", entry });
  }

  /** A schedule added or changed (null: removed). Rare: pushed as it comes. */
  schedule(id: string, schedule: Schedule | null): void {
    this.emit({ event: "schedule", id, schedule });
  }

  private flushRows(): void {
    this.scheduled = false;
    const dirty = [...this.dirty.values()];
    this.dirty.clear();
    if (this.listeners.size === 0) return;
    for (const build of dirty) this.emit({ event: "row", row: build() });
  }

  private emit(event: PushEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
