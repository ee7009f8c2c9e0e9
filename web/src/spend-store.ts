/**
 * What was spent, a day at a time, and roost.json's budgets, as the page knows them: the `spend`
 * op (docs/protocol.md, "Budgets"). The daemon pushes no spend: it is asked on load, after each
 * reconnection, and again once a row's `budget.spent` moved or a `budget` feed entry came, at most
 * every 2 s (forty agents reporting at once make one request, not forty). One for the page: the
 * header and the Spend page read the same answer.
 */
import { get, type Row } from "./api.js";
import { type Ctx, onePerPage } from "./ctx.js";
import type { Limits, Spent } from "./spend-words.js";

export interface SpendDay {
  day: string;
  total: Spent;
  profiles: Record<string, Spent>;
  repositories: Record<string, Spent>;
}
export interface SpendAnswer {
  today: string;
  days: SpendDay[];
  limits: { job?: Limits; daily?: Limits; profiles?: Record<string, Limits> };
}

/** The days asked for: the Spend page's week. */
export const SPEND_DAYS = 7;
/** Spend asked again at most this often, however many rows moved. */
const AGAIN_MS = 2000;

const spentKey = (r: Row | undefined) => {
  const s = r?.budget?.spent;
  return s ? `${s.cost}/${s.tokens}/${s.minutes}` : "";
};

export class SpendStore {
  data: SpendAnswer | null = null;
  /** Why the last load failed, in words; null once loaded. */
  error: string | null = null;
  private timer: number | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(ctx: Ctx) {
    ctx.live.onRow(({ before, after }) => {
      // A row first seen (the subscription's answer) is in the spend loaded with it.
      if (before && spentKey(before) !== spentKey(after)) this.soon();
    });
    ctx.live.onFeed((e) => {
      if (e.kind === "budget") this.soon();
    });
    ctx.live.onConnect((again) => {
      if (again) void this.load();
    });
    void this.load();
  }

  /** Today's spend, nothing spent when the day has none yet. */
  today(): SpendDay | null {
    const d = this.data;
    if (!d) return null;
    return (
      d.days.find((x) => x.day === d.today) ?? {
        day: d.today,
        total: { cost: 0, tokens: 0, minutes: 0 },
        profiles: {},
        repositories: {},
      }
    );
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Asked again within 2 s; a change meanwhile rides along. */
  soon(): void {
    if (this.timer !== undefined) return;
    this.timer = window.setTimeout(() => {
      this.timer = undefined;
      void this.load();
    }, AGAIN_MS);
  }

  private async load(): Promise<void> {
    try {
      this.data = await get<SpendAnswer>(`spend?days=${SPEND_DAYS}`);
      this.error = null;
    } catch (err) {
      this.error = (err as Error).message;
    }
    for (const fn of this.listeners) fn();
  }
}

/** The page's one store, made when first asked for. */
export const spendStore = onePerPage((ctx) => new SpendStore(ctx));
