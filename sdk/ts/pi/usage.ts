/**
 * A pi job's usage: the tokens and cost of every assistant message pi's model answered, summed.
 * The row's `usage` is this shape (the hub shows `cost.total` as the job's cost).
 */
import type { PiUsage } from "./pi-api.js";

export interface UsageTotals {
  /** Assistant messages counted. */
  messages: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** In dollars, as pi prices the model (0 for a model with no price). */
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

export const noUsage = (): UsageTotals => ({
  messages: 0,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

/** Dollars to the hundred-millionth: sums of prices carry float noise (0.20400000000000001) otherwise. */
const dollars = (v: number) => Math.round(v * 1e8) / 1e8;

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The totals with one message's usage added (a message without usage adds nothing). */
export function addUsage(totals: UsageTotals, usage: PiUsage | undefined): UsageTotals {
  if (!usage) return totals;
  const cost = usage.cost ?? ({} as PiUsage["cost"]);
  return {
    messages: totals.messages + 1,
    input: totals.input + num(usage.input),
    output: totals.output + num(usage.output),
    cacheRead: totals.cacheRead + num(usage.cacheRead),
    cacheWrite: totals.cacheWrite + num(usage.cacheWrite),
    totalTokens: totals.totalTokens + num(usage.totalTokens),
    cost: {
      input: dollars(totals.cost.input + num(cost.input)),
      output: dollars(totals.cost.output + num(cost.output)),
      cacheRead: dollars(totals.cost.cacheRead + num(cost.cacheRead)),
      cacheWrite: dollars(totals.cost.cacheWrite + num(cost.cacheWrite)),
      total: dollars(totals.cost.total + num(cost.total)),
    },
  };
}
