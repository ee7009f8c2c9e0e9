/**
 * The events feed (docs/protocol.md, `events`): what happened across the jobs, kept in the store
 * (the last 1000) and pushed to subscribers. Every entry names its job and its actor.
 */
import type { FeedEntry } from "../../sdk/ts/protocol/index.js";
import type { Secrets } from "../secrets.js";
import type { Store } from "../store/store.js";
import type { Pushes } from "./pushes.js";

/** Who did it: the user (hub, CLI), roost itself, or a job (by name, with its id). */
export interface Actor {
  who: string;
  whoId: string | null;
}

export const USER: Actor = { who: "user", whoId: null };
export const ROOST: Actor = { who: "roost", whoId: null };

export type FeedKind =
  | "dispatch"
  | "start"
  | "state"
  | "reply"
  | "exit"
  | "stop"
  | "respawn"
  | "restart"
  | "rm"
  | "rename"
  | "repair"
  // a job's branch landed in its base branch (core/worktrees/merge.ts)
  | "merge"
  // two jobs' work would conflict if both landed (core/worktrees/overlaps.ts): `id` one of them, the text names both
  | "overlap"
  // the peers (docs/protocol.md): `who`/`whoId` the sender, `id` the receiver (for a notice, the watcher)
  | "message"
  | "spawn"
  | "handback"
  | "notice"
  // the task board: `why` says the change, `id` the session it is about (task-board.ts)
  | "task"
  // a schedule's (core/schedules/schedules.ts): `id` the schedule's, the text naming the job a run started
  | "schedule"
  // the concierge's (core/concierge/concierge.ts): `why` what it said or did (`info`, `need`,
  // `answer`, `suggest`, `undo`, `on`, `off`) or what became of a standing order (`order`,
  // `order-kept`, `order-dropped`); `id` the session it is about, else the concierge's job
  | "concierge"
  // the merge queue's (core/queue/queue.ts): `id` the job whose branch was queued, landed or refused
  | "queue"
  // a notify hook given up (core/notify/notify.ts): `id` "notify", the text naming the hook by its place
  | "notify"
  // a budget's (core/budgets/): `why` `near` (80% spent), `spent`, `exempt` (a respawn past it), `set`
  // (the `budget` op); `id` the job it is about
  | "budget";

export class Feed {
  /** Who learns of each entry as it is recorded, in the daemon (the concierge's digests). */
  private readonly observers: ((entry: FeedEntry) => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly pushes: Pushes,
    /** What an entry says passes it first: an entry is read by every hub, read-only ones too. */
    private readonly secrets: Secrets,
  ) {}

  observe(observer: (entry: FeedEntry) => void): void {
    this.observers.push(observer);
  }

  record(id: string, kind: FeedKind, text: string, actor: Actor, why?: string): FeedEntry {
    const entry = this.store.addEvent({
      id,
      kind,
      text: this.secrets.redact(text),
      who: actor.who,
      whoId: actor.whoId,
      ...(why === undefined ? {} : { why: this.secrets.redact(why) }),
    });
    this.pushes.feed(entry);
    for (const observe of this.observers) observe(entry);
    return entry;
  }

  list(q: { after?: number; limit?: number; id?: string; involving?: string }): {
    events: FeedEntry[];
    cursor: number;
  } {
    const events = this.store.events({ ...q, limit: q.limit ?? 100 });
    const cursor = events.at(-1)?.cursor ?? q.after ?? this.store.lastCursor();
    return { events, cursor };
  }
}
