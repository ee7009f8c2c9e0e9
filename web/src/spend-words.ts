/**
 * Spend and budgets in words (docs/budgets.md): "$3.20", "120k tokens", "14 min", "$1.20 of $5",
 * and the tone a share of a budget is drawn in (`warn` from 80%, as the daemon's notice; `alarm`
 * at 100%). The header, the Spend page and the rows say them the same way.
 */
// Types alone: the module's values are typebox schemas, which the page's bundle does without.
import type { BudgetDimension, Limits, Spent } from "../../sdk/ts/protocol/budgets.js";

export type { BudgetDimension, Limits, Spent };

/** The dimensions a budget counts, in the order they are said (budgets.ts's BUDGET_DIMENSIONS). */
export const BUDGET_DIMENSIONS: readonly BudgetDimension[] = ["cost", "tokens", "minutes"];

export type SpendTone = "ok" | "warn" | "alarm";

/** "$3.20"; a whole limit as "$20"; under a cent "<$0.01" (but nothing spent is "$0"). */
export function money(n: number): string {
  if (n === 0) return "$0";
  if (n < 0.01) return "<$0.01";
  return Number.isInteger(n) ? `$${n}` : `$${n.toFixed(2)}`;
}

/** "850", "12k", "1.2M": a count of tokens, short. */
export function count(n: number): string {
  const short = (x: number, unit: string) =>
    `${x < 10 ? x.toFixed(1).replace(/\.0$/, "") : Math.round(x)}${unit}`;
  if (n >= 1e6) return short(n / 1e6, "M");
  if (n >= 1e3) return short(n / 1e3, "k");
  return String(Math.round(n));
}

/** "14 min", "2 h 5 min", "<1 min". */
export function minutesText(m: number): string {
  if (m > 0 && m < 1) return "<1 min";
  const all = Math.round(m);
  if (all < 60) return `${all} min`;
  const rest = all % 60;
  return `${Math.floor(all / 60)} h${rest ? ` ${rest} min` : ""}`;
}

/** One dimension's amount in words, its unit with it. */
export function amount(dim: BudgetDimension, n: number): string {
  if (dim === "cost") return money(n);
  if (dim === "tokens") return `${count(n)} tokens`;
  return minutesText(n);
}

/** "$1.20 of $5", "12k of 50k tokens", "14 of 120 min": the unit said once, at the end. */
export function ofText(dim: BudgetDimension, used: number, limit: number): string {
  if (dim === "cost") return `${money(used)} of ${money(limit)}`;
  if (dim === "tokens") return `${count(used)} of ${count(limit)} tokens`;
  return limit >= 60 || used >= 60
    ? `${minutesText(used)} of ${minutesText(limit)}`
    : `${Math.round(used)} of ${Math.round(limit)} min`;
}

/** "$3.20 · 120k tokens · 14 min": what was spent, each dimension; the ones at 0 left out (all 0: "$0"). */
export function spentText(s: Spent): string {
  const parts = BUDGET_DIMENSIONS.filter((d) => s[d] > 0).map((d) => amount(d, s[d]));
  return parts.length ? parts.join(" · ") : "$0";
}

export interface Share {
  dim: BudgetDimension;
  used: number;
  limit: number;
  /** used / limit: 1 is all of it. */
  frac: number;
}

/** Each dimension a budget limits, with what was spent of it: the most spent first. */
export function shares(limit: Limits | null | undefined, used: Spent | null | undefined): Share[] {
  if (!limit) return [];
  const out: Share[] = [];
  for (const dim of BUDGET_DIMENSIONS) {
    const l = limit[dim];
    if (l === undefined || l <= 0) continue;
    const u = used?.[dim] ?? 0;
    out.push({ dim, used: u, limit: l, frac: u / l });
  }
  return out.sort((a, b) => b.frac - a.frac);
}

/** The tone of a share: `warn` from 80% (when the daemon says `near`), `alarm` from 100%. */
export function toneOf(frac: number): SpendTone {
  return frac >= 1 ? "alarm" : frac >= 0.8 ? "warn" : "ok";
}

/** "$1.20 of $5 (24%)" for each share, joined: a title's words. */
export function sharesTitle(list: Share[]): string {
  return list.map((s) => `${ofText(s.dim, s.used, s.limit)} (${Math.round(s.frac * 100)}%)`).join(", ");
}

/** "$5, 120 min": a budget's limits in words. */
export function limitsText(limit: Limits): string {
  return BUDGET_DIMENSIONS.filter((d) => limit[d] !== undefined)
    .map((d) => amount(d, limit[d]!))
    .join(", ");
}
