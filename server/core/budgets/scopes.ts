/**
 * The budgets that apply to a job (docs/budgets.md): its own (dispatch's `budget`, the `budget` op,
 * else roost.json's `budgets.job`), its profile's for the day and the day's, each with what was
 * spent of it.
 */
import type { BudgetScope, BudgetsConfig, Limits, RowBudget, Spent } from "../../../sdk/ts/protocol/index.js";
import type { JobBudget, JobRecord } from "../../store/records.js";
import { limits, NOTHING, share, stateOf } from "./count.js";

/** One budget that applies to a job: its scope, key (`job`, `profile:NAME`, `daily`), limit and what was spent of it. */
export interface ScopeView {
  scope: BudgetScope;
  key: string;
  limit: Limits;
  used: Spent;
  share: number;
}

/** The day's totals: all jobs', and each profile's (summed when asked: most rows need neither). */
export interface DayTotals {
  total(): Spent;
  profile(name: string): Spent;
}

export const emptyBudget = (): JobBudget => ({ own: null, spent: { ...NOTHING }, seen: null, exempt: null });

/** The job's own limit: its own, else roost.json's `budgets.job`. */
export const ownLimit = (rec: JobRecord, config: BudgetsConfig): Limits | null =>
  limits(rec.budget?.own) ? rec.budget!.own : limits(config.job) ? config.job : null;

export function scopesOf(rec: JobRecord, config: BudgetsConfig, day: DayTotals): ScopeView[] {
  const views: ScopeView[] = [];
  // What was spent of a budget is summed only when the budget is set: every row built passes here.
  const add = (scope: BudgetScope, key: string, limit: Limits | null | undefined, spent: () => Spent) => {
    if (!limits(limit)) return;
    const used = spent();
    views.push({ scope, key, limit, used, share: share(used, limit) });
  };
  add("job", "job", ownLimit(rec, config), () => rec.budget?.spent ?? NOTHING);
  add("profile", `profile:${rec.profile}`, config.profiles?.[rec.profile], () => day.profile(rec.profile));
  add("daily", "daily", config.daily, day.total);
  return views;
}

/** Whether a spent scope no longer stops the job (its respawn freed it, for the day). */
export const exempt = (rec: JobRecord, scope: BudgetScope, today: string): boolean =>
  !!rec.budget?.exempt && rec.budget.exempt.until >= today && rec.budget.exempt.scopes.includes(scope);

/** The row's `budget`: the scope nearest its end, not counting those it is exempt from. */
export function rowBudget(rec: JobRecord, views: ScopeView[], today: string): RowBudget {
  const counted = views.filter((v) => !exempt(rec, v.scope, today));
  const nearest = counted.reduce<ScopeView | null>((a, v) => (a === null || v.share > a.share ? v : a), null);
  const ex = rec.budget?.exempt;
  return {
    spent: rec.budget?.spent ?? { ...NOTHING },
    state: nearest ? stateOf(nearest.share) : "ok",
    scope: nearest?.scope ?? null,
    limit: nearest?.limit ?? null,
    used: nearest?.used ?? null,
    own: rec.budget?.own ?? null,
    exempt: ex && ex.until >= today ? ex : null,
  };
}

/** `the daily budget`, `profile claude's budget for the day`, `j3's own budget`. */
export function scopeName(v: Pick<ScopeView, "scope" | "key">, jobId: string): string {
  if (v.scope === "daily") return "the daily budget";
  if (v.scope === "profile") return `profile ${v.key.slice("profile:".length)}'s budget for the day`;
  return `${jobId}'s own budget`;
}

/** How to raise a budget of this scope. */
export function howToRaise(v: Pick<ScopeView, "scope" | "key">, jobId: string): string {
  if (v.scope === "daily") return "raise budgets.daily in roost.json and restart roost, or wait for tomorrow";
  if (v.scope === "profile")
    return `raise budgets.profiles.${v.key.slice("profile:".length)} in roost.json and restart roost, or wait for tomorrow`;
  return `raise it with \`roost budget ${jobId} --cost N\` (or --tokens, --minutes)`;
}
