/**
 * A row's budget in words (docs/budgets.md): what the job spent against the budget nearest to its
 * end (`$1.20 of $5`, or the day's or its profile's for the day: `$1.20 · today $4.10 of $20`; on
 * a dense line `$1.20 · day 21%`, `$1.20 · profile 83%`), in the tone of its `budget.state` (warn `near`, alarm `spent`);
 * and a job roost stopped for it.
 */
import type { Row } from "./api.js";
import { amount, ofText, type SpendTone, shares, sharesTitle, spentText } from "./spend-words.js";

/** Stopped by roost because a budget was spent: its badge says "budget spent", Respawn continues it. */
export const isBudgetStopped = (row: Row) => row.life === "stopped" && row.stopReason === "budget";

const TONES: Record<string, SpendTone> = { ok: "ok", near: "warn", spent: "alarm" };

export interface BudgetWords {
  text: string;
  /** For a dense line's narrow cell: a budget not the job's own as its share. */
  short: string;
  title: string;
  tone: SpendTone;
}

/** Null where no budget applies to the job (or a remote's row says none). */
export function budgetWords(row: Row): BudgetWords | null {
  const b = row.budget;
  if (!b?.scope || !b.limit) return null;
  const list = shares(b.limit, b.used);
  const top = list[0];
  if (!top) return null;
  const whose =
    b.scope === "job" ? "its own" : b.scope === "daily" ? "the day's" : `${row.profile}'s for the day`;
  const own = ofText(top.dim, top.used, top.limit);
  const mine = amount(top.dim, b.spent[top.dim]);
  const text =
    b.scope === "job" ? own : `${mine} · ${b.scope === "daily" ? "today" : `${row.profile} today`} ${own}`;
  const pct = `${Math.round(top.frac * 100)}%`;
  const short = b.scope === "job" ? own : `${mine} · ${b.scope === "daily" ? "day" : "profile"} ${pct}`;
  const exempt = b.exempt
    ? `; respawned past ${b.exempt.scopes.join(" and ")} budget until ${b.exempt.until}`
    : "";
  return {
    text,
    short,
    title: `This job spent ${spentText(b.spent)}; its budget (${whose}): ${sharesTitle(list)}${exempt}`,
    tone: TONES[b.state] ?? "ok",
  };
}
