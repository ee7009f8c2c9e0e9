/**
 * Budgets' arithmetic (docs/budgets.md), apart from the daemon: what a report's `usage` says was
 * spent, the rise since the last one, how much of a budget is spent, and the words for it.
 */
import {
  BUDGET_DIMENSIONS,
  type BudgetState,
  type Limits,
  type Spent,
} from "../../../sdk/ts/protocol/index.js";

export const NOTHING: Spent = { cost: 0, tokens: 0, minutes: 0 };
/** The share of a budget at which its notice is said. */
export const NEAR = 0.8;

const amount = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * The cost (USD) and tokens a report's `usage` says, cumulative over the agent's session (pi,
 * roost's Claude Code hook, the ACP bridge: `{totalTokens, input, output, cost: {total}}`); null
 * for what it does not say. Tokens: `totalTokens`, else input + output.
 */
export function usageTotals(usage: unknown): { cost: number | null; tokens: number | null } {
  if (!isObject(usage)) return { cost: null, tokens: null };
  const cost = isObject(usage.cost) ? amount(usage.cost.total) : amount(usage.cost);
  const input = amount(usage.input);
  const output = amount(usage.output);
  const tokens =
    amount(usage.totalTokens) ?? (input === null && output === null ? null : (input ?? 0) + (output ?? 0));
  return { cost, tokens };
}

/**
 * What was spent since `seen` (the totals of the last report counted): the rise; a total that went
 * down is a new session of the agent's, counted whole. Returns the rise and the totals to keep.
 */
export function risen(
  seen: { cost: number; tokens: number } | null,
  now: { cost: number | null; tokens: number | null },
): { cost: number; tokens: number; seen: { cost: number; tokens: number } } {
  const rise = (was: number | undefined, is: number | null) =>
    is === null ? 0 : was === undefined || is < was ? is : is - was;
  return {
    cost: rise(seen?.cost, now.cost),
    tokens: rise(seen?.tokens, now.tokens),
    seen: { cost: now.cost ?? seen?.cost ?? 0, tokens: now.tokens ?? seen?.tokens ?? 0 },
  };
}

export const plus = (a: Spent, b: Partial<Spent>): Spent => ({
  cost: a.cost + (b.cost ?? 0),
  tokens: a.tokens + (b.tokens ?? 0),
  minutes: a.minutes + (b.minutes ?? 0),
});

/** How much of `limit` is spent: the largest share of its dimensions (1 = all of it); 0 for no limit. */
export function share(spent: Spent, limit: Limits): number {
  let most = 0;
  for (const d of BUDGET_DIMENSIONS) {
    const l = limit[d];
    if (l !== undefined) most = Math.max(most, spent[d] / l);
  }
  return most;
}

export const stateOf = (s: number): BudgetState => (s >= 1 ? "spent" : s >= NEAR ? "near" : "ok");

/** Whether a limit sets anything. */
export const limits = (l: Limits | null | undefined): l is Limits =>
  !!l && BUDGET_DIMENSIONS.some((d) => l[d] !== undefined);

const UNITS: Record<(typeof BUDGET_DIMENSIONS)[number], (n: number) => string> = {
  cost: (n) => `$${n.toFixed(2)}`,
  tokens: (n) => `${Math.round(n)} tokens`,
  minutes: (n) => `${n < 10 ? n.toFixed(1) : Math.round(n)} min`,
};

/** `cost $4.10 of $5.00` for the dimension nearest its end. */
export function spentWords(spent: Spent, limit: Limits): string {
  let word = "";
  let most = -1;
  for (const d of BUDGET_DIMENSIONS) {
    const l = limit[d];
    if (l === undefined || spent[d] / l <= most) continue;
    most = spent[d] / l;
    word = `${d} ${UNITS[d](spent[d])} of ${UNITS[d](l)}`;
  }
  return word;
}

/** `cost $5.00, 30 min`: a limit in words. */
export const limitWords = (l: Limits): string =>
  BUDGET_DIMENSIONS.filter((d) => l[d] !== undefined)
    .map((d) => `${d} ${UNITS[d](l[d]!)}`)
    .join(", ");

/** The daemon machine's local date, `YYYY-MM-DD`: a budget's day. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
