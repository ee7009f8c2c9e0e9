/**
 * The concierge's standing orders (docs/protocol.md, "`concierge-order`"): what it is to keep doing, the user's
 * (the hub's connection) or its own, at most LIMITS.orders. Every digest lists them; one with a
 * `when` (a schedule's vocabulary, read by when.ts: one calculator for both) is a due thing of the
 * daemon's one clock (clock.ts), and when it comes the concierge gets a digest with a "Due now"
 * section (digest.ts); its `nextAt` moves on only once that digest reached the concierge, so that
 * an order due while the concierge is away or the daemon is down is said once it is back.
 *
 * Kept in the store whole (a few small records), with the counter their ids come from (never
 * reused). Each change is a `concierge` feed entry (`order-kept`, `order-dropped`, `order`).
 */
import { LIMITS, RoostError, type StandingOrder } from "../../../sdk/ts/protocol/index.js";
import type { Clock } from "../clock.js";
import type { Actor, Feed } from "../feed.js";
import { parseWhen, type When } from "../schedules/index.js";
import { excerpt, oneLine } from "../text.js";
import type { Concierge } from "./concierge.js";

type OrderRecord = Omit<StandingOrder, "words">;

interface Kept {
  lastId: number;
  orders: OrderRecord[];
}

export class Orders {
  private lastId: number;
  private readonly all: OrderRecord[];
  /** Each order's `when`, read (absent: none, or no longer readable here: its time zone gone). */
  private readonly whens = new Map<number, When>();

  /** `owner`: the concierge whose orders these are (kept with it, said in its status, due in its digests). */
  constructor(
    private readonly owner: Concierge,
    private readonly feed: Pick<Feed, "record">,
    kept: Map<string, unknown>,
    private readonly clock: Clock,
  ) {
    const k = (kept.get("orders") as Kept | undefined) ?? { lastId: 0, orders: [] };
    this.lastId = k.lastId;
    this.all = k.orders;
    for (const o of this.all) {
      if (o.when === null) continue;
      try {
        this.whens.set(o.id, parseWhen(o.when, clock.now()));
      } catch {
        // Kept as written, on no clock: the digest still lists it.
      }
    }
  }

  get count(): number {
    return this.all.length;
  }

  /** At the daemon's start: each order on a clock armed; one past due fires at once. */
  start(): void {
    for (const o of this.all) this.arm(o);
  }

  list(): StandingOrder[] {
    return this.all.map((o) => this.view(o));
  }

  /** The orders on a clock whose time has come. */
  due(now: Date): StandingOrder[] {
    return this.all
      .filter((o) => o.nextAt !== null && Date.parse(o.nextAt) <= now.getTime())
      .map((o) => this.view(o));
  }

  add(text: string, when: string | undefined, by: StandingOrder["by"], actor: Actor): StandingOrder {
    if (this.all.length >= LIMITS.orders)
      throw new RoostError(
        "full",
        `there are ${LIMITS.orders} standing orders, the most roost keeps: remove one first (concierge-order rm)`,
      );
    const folded = oneLine(text);
    if (!folded) throw new RoostError("bad_request", "an order's text is empty once folded to one line");
    const now = this.clock.now();
    const read = when === undefined ? null : parseWhen(when, now);
    const order: OrderRecord = {
      id: this.lastId + 1,
      text: folded,
      when: read?.text ?? null,
      by,
      at: now.toISOString(),
      lastAt: null,
      count: 0,
      nextAt: read?.next(now, now)?.toISOString() ?? null,
    };
    this.lastId = order.id;
    this.all.push(order);
    if (read) this.whens.set(order.id, read);
    this.save();
    this.arm(order);
    this.record("order-kept", `#${order.id} ${read ? `${read.words}: ` : ""}${excerpt(folded)}`, actor);
    return this.view(order);
  }

  /** `rm`: the user's any; the concierge's only its own (`unsupported`). */
  remove(id: number, by: StandingOrder["by"], actor: Actor): StandingOrder {
    const order = this.get(id);
    if (by === "concierge" && order.by !== "concierge")
      throw new RoostError(
        "unsupported",
        `#${id} is the user's order: the concierge removes only its own (ask the user: concierge-say)`,
      );
    this.all.splice(this.all.indexOf(order), 1);
    this.whens.delete(id);
    this.clock.set(dueKey(id), null, () => {});
    this.save();
    this.record("order-dropped", `#${id} ${excerpt(order.text)}`, actor);
    return this.view(order);
  }

  /** `applied`: the concierge did what it says (`text`: what, this time). */
  applied(id: number, text: string | undefined, actor: Actor): StandingOrder {
    const order = this.get(id);
    order.lastAt = this.clock.now().toISOString();
    order.count++;
    this.save();
    this.record("order", `#${id} ${excerpt(text ?? order.text)}`, actor);
    return this.view(order);
  }

  /** The digest with these due orders reached the concierge: each one's next time, from now. */
  movedOn(ids: number[], now: Date): void {
    for (const id of ids) {
      const order = this.all.find((o) => o.id === id);
      const when = this.whens.get(id);
      if (!order || !when) continue;
      order.nextAt = when.next(now, new Date(order.at))?.toISOString() ?? null;
      this.arm(order);
    }
    this.save();
    this.owner.changed();
  }

  private get(id: number): OrderRecord {
    const order = this.all.find((o) => o.id === id);
    if (order) return order;
    const ids = this.all.map((o) => `#${o.id}`);
    throw new RoostError(
      "not_found",
      `no standing order #${id}${ids.length ? `; the orders are: ${ids.join(", ")}` : ": there are none"}`,
    );
  }

  /** On the clock for its next time; when it comes, the concierge's digest says it is due. */
  private arm(order: OrderRecord): void {
    const at = order.nextAt !== null && this.whens.has(order.id) ? new Date(order.nextAt) : null;
    this.clock.set(dueKey(order.id), at, () => this.owner.digests.orderDue());
  }

  private save(): void {
    this.owner.keep("orders", { lastId: this.lastId, orders: this.all } satisfies Kept);
  }

  private record(why: string, text: string, actor: Actor): void {
    this.feed.record(this.owner.feedId(), "concierge", text, actor, why);
    this.owner.changed();
  }

  private view(o: OrderRecord): StandingOrder {
    return {
      ...o,
      words: this.whens.get(o.id)?.words ?? (o.when === null ? null : `${o.when} (cannot run here)`),
    };
  }
}

const dueKey = (id: number) => `concierge order ${id}`;
