/**
 * Digests (docs/protocol.md, "The concierge"): how roost wakes the concierge. Woken by events, not by a fixed
 * heartbeat (concierges that burn tokens on idle heartbeats, and repeat one escalation for hours,
 * are what users of other tools complain of):
 *
 * - a feed entry that matters (a session turned blocked, failed or done, a new question, a task
 *   board change, an exit, two sessions' work that would conflict; not the concierge's own doings) arms one settle time on the daemon's
 *   clock: the changes that come meanwhile make one digest;
 * - nothing happening makes none; each digest says what happened since the feed cursor the last
 *   one reached, so the same need is said once (the fleet's lines say how each session stands);
 * - one digest waits for the concierge at a time: while it has not taken the last one, the next
 *   waits, and covers everything since once it has (a slow concierge gets fewer, fuller digests);
 * - a standing order's time coming (concierge-orders.ts) sends one at once, with "Due now", if the
 *   concierge is connected; else when it connects (after its start, or the daemon's restart).
 *
 * A digest is a peer item of kind `digest` (peer-items.ts: saved, numbered, delivered, acked), from
 * roost, with its `why` (`start`, `events`, `order`) on its delivery.
 */
import type { FeedEntry } from "../../../sdk/ts/protocol/index.js";
import type { LiveJob } from "../jobs/index.js";
import { isEnded } from "../jobs/index.js";
import type { Concierge, ConciergeParts } from "./concierge.js";
import { DIGEST_ENVELOPE, digestText } from "./digest-text.js";

/** How long the first change waits for others to come with it. */
export const SETTLE_MS = 1500;
/** The feed entries that wake the concierge. */
const WAKES: ReadonlySet<string> = new Set(["state", "task", "exit", "overlap", "budget"]);
/** The feed entries a digest says, besides those. */
const SAYS: ReadonlySet<string> = new Set([...WAKES, "dispatch", "spawn", "handback", "rm", "respawn"]);
const SETTLE_KEY = "concierge digest";

type Why = "start" | "events" | "order" | "policy";

export class Digests {
  /** The feed cursor the last digest reached (null: none yet). */
  private cursor: number | null;
  /** A digest is owed: changes came while one was waiting for the concierge. */
  private owed = false;
  /** The concierge was just turned on: its first connection gets the fleet. */
  private greet = false;
  private settling = false;
  /** Sends one at a time: the cursor moves with each. */
  private sending: Promise<void> = Promise.resolve();

  /** `owner`: the concierge these digests wake; `parts`, what they read and send through (its own). */
  constructor(
    private readonly owner: Concierge,
    private readonly parts: ConciergeParts,
    kept: Map<string, unknown>,
  ) {
    this.cursor = (kept.get("digestCursor") as number | undefined) ?? null;
  }

  /** The concierge was turned on: what happened before is not news; the fleet is, once it connects. */
  begin(): void {
    this.setCursor(this.parts.store.lastCursor());
    this.greet = true;
  }

  /** Every feed entry (feed.ts's observers): one that matters wakes the concierge after the settle. */
  observed(entry: FeedEntry): void {
    if (!WAKES.has(entry.kind) || this.settling) return;
    const concierge = this.owner.running();
    if (!concierge || this.byOrAbout(entry, concierge)) return;
    this.settling = true;
    const clock = this.parts.clock;
    clock.set(SETTLE_KEY, new Date(clock.now().getTime() + SETTLE_MS), () => {
      this.settling = false;
      this.send("events");
    });
  }

  /**
   * The user changed the policy: the concierge may now do more for the sessions that wait on a
   * question (answer them), so it is woken for them, whether or not anything else happened.
   */
  policyChanged(): void {
    const concierge = this.owner.running();
    if (!concierge) return;
    const asks = this.parts.registry
      .rows()
      .some((r) => r.id !== concierge.rec.id && r.life === "running" && r.waitingFor === "question");
    if (asks) this.send("policy");
  }

  /** An order's time came (its clock). */
  orderDue(): void {
    this.send("order");
  }

  /** The concierge reported on a new connection: its greeting, a due order, what waited. */
  connected(): void {
    if (this.greet) this.send("start");
    this.send("order");
    if (this.owed) this.send("events");
  }

  /** The concierge took an item: a digest owed meanwhile goes now. */
  taken(): void {
    if (this.owedPolicy) this.send("policy");
    else if (this.owed) this.send("events");
  }

  /** A policy's digest is owed (it waited for the last one to be taken): it goes even with no news. */
  private owedPolicy = false;

  private send(why: Why): void {
    this.sending = this.sending
      .then(() => this.sendNow(why))
      .catch((err) => console.error("roost: the concierge's digest failed:", err));
  }

  private async sendNow(why: Why): Promise<void> {
    const { registry, clock, sendItem } = this.parts;
    const concierge = this.owner.running();
    if (!concierge) return;
    const now = clock.now();
    const due = this.owner.orders.due(now);
    // An order is said to a concierge that is there to take it; it stays due until then.
    if (why === "order" && (due.length === 0 || !concierge.link)) return;
    if (why !== "order" && this.waiting(concierge)) {
      this.owed = true;
      if (why === "policy") this.owedPolicy = true;
      return;
    }
    const happened = this.happened(concierge);
    const fleet = registry.rows().filter((r) => r.id !== concierge.rec.id && !isEnded(registry.get(r.id)));
    if (why === "events" && happened.entries.length === 0) {
      this.owed = false;
      return;
    }
    if (why === "start") {
      this.greet = false;
      if (fleet.length === 0 && this.owner.orders.count === 0) return;
    }
    const sayDue = concierge.link ? due : [];
    this.owed = false;
    this.owedPolicy = false;
    await sendItem(concierge, {
      peer: { kind: "digest", from: { id: "roost", name: "roost" }, relation: "roost" },
      envelope: DIGEST_ENVELOPE,
      text: digestText({
        why: sayDue.length > 0 ? "order" : why,
        at: now,
        happened: happened.entries,
        fleet,
        ...(why === "policy" ? { policy: this.owner.policy } : {}),
        orders: this.owner.orders.list(),
        due: sayDue,
      }),
      why: sayDue.length > 0 ? "order" : why,
      feed: null,
      by: null,
    });
    this.setCursor(happened.cursor);
    if (sayDue.length > 0)
      this.owner.orders.movedOn(
        sayDue.map((o) => o.id),
        now,
      );
  }

  /** A digest not yet taken by the concierge. */
  private waiting(concierge: LiveJob): boolean {
    return this.parts.store.pendingReplies(concierge.rec.id).some((r) => r.peer?.kind === "digest");
  }

  /** The entries that matter since the last digest, and the cursor they reach. */
  private happened(concierge: LiveJob): { entries: FeedEntry[]; cursor: number } {
    const after = this.cursor ?? this.parts.store.lastCursor();
    const { events, cursor } = this.parts.feed.list({ after, limit: 1000 });
    const entries = events.filter((e) => SAYS.has(e.kind) && !this.byOrAbout(e, concierge));
    return { entries: entries.slice(-100), cursor };
  }

  private byOrAbout(e: FeedEntry, concierge: LiveJob): boolean {
    return e.id === concierge.rec.id || e.whoId === concierge.rec.id;
  }

  private setCursor(cursor: number): void {
    if (cursor === this.cursor) return;
    this.cursor = cursor;
    this.owner.keep("digestCursor", cursor);
  }
}
