/**
 * Budgets (docs/budgets.md): what each job spends, counted by roost from its agent's reports
 * (`usage`, cumulative: the rise since the last one) and its running time; the day's totals by
 * profile and repository; the notice at 80% of a budget and the pause at 100% (pauses.ts). A job's
 * spend is kept on its record (written with its row, coalesced), the day's in the spend table
 * (written within a second, several at once).
 */
import fs from "node:fs";
import path from "node:path";
import {
  type BudgetsConfig,
  type Limits,
  type OpResult,
  RoostError,
  type RowBudget,
  type Spent,
} from "../../../sdk/ts/protocol/index.js";
import type { JobBudget } from "../../store/records.js";
import type { SpendRow } from "../../store/spend.js";
import type { Store } from "../../store/store.js";
import { type Feed, ROOST } from "../feed.js";
import type { LiveJob, Registry } from "../jobs/index.js";
import type { Notify } from "../notify/index.js";
import { limitWords, localDay, NOTHING, plus, risen, share, spentWords, usageTotals } from "./count.js";
import { Pauses } from "./pauses.js";
import {
  type DayTotals,
  emptyBudget,
  exempt,
  howToRaise,
  rowBudget,
  type ScopeView,
  scopeName,
  scopesOf,
} from "./scopes.js";

export interface BudgetParts {
  config: BudgetsConfig;
  store: Store;
  registry: Registry;
  feed: Pick<Feed, "record">;
  notify: Pick<Notify, "budget">;
  /** A steer from roost to the job's agent (a reply, mode steer): its seq. */
  steer: (job: LiveJob, text: string) => Promise<number | undefined>;
  /** Stops the job with `stopReason: "budget"`. */
  stop: (job: LiveJob) => Promise<void>;
  /** Starts a job stopped for its budget again (`budget` raised it). */
  respawn: (job: LiveJob) => Promise<unknown>;
  /** How often running time is counted. */
  tickMs: number;
  /** How long a steered agent may go on working before it is stopped. */
  graceMs: number;
  now?: () => number;
}

const FLUSH_MS = 1000;
/** How long spend is gathered before the jobs are checked against their budgets. */
const CHECK_MS = 100;
const key = (profile: string, repo: string) => `${profile}\u0000${repo}`;

export class Budgets {
  private day: string;
  /** Today's spend by profile and repository (`key`), as the store has it plus what is not yet written. */
  private totals = new Map<string, SpendRow>();
  /** What is not yet written to the store. */
  private unsaved = new Map<string, SpendRow>();
  private flushTimer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  private checkTimer: NodeJS.Timeout | null = null;
  /** Each running job's time counted up to (ms). */
  private readonly since = new Map<string, number>();
  private readonly repos = new Map<string, string>();
  /** The notices said today (their keys, each ending with the day). */
  private notices = new Set<string>();
  /** Each row's last budget state, so that a change pushes it. */
  private readonly shown = new Map<string, string>();
  readonly pauses: Pauses;
  private readonly now: () => number;

  constructor(private readonly parts: BudgetParts) {
    this.now = parts.now ?? Date.now;
    this.day = localDay(this.now());
    this.load();
    this.pauses = new Pauses(parts);
  }

  /** Counting running time from now on. */
  start(): void {
    this.tickTimer = setInterval(() => this.tick(), this.parts.tickMs);
    this.tickTimer.unref();
  }

  close(): void {
    if (this.tickTimer) clearInterval(this.tickTimer);
    if (this.checkTimer) clearTimeout(this.checkTimer);
    for (const job of this.parts.registry.all()) if (job.rec.life === "running") this.countTime(job);
    this.pauses.close();
    this.flush();
  }

  get today(): string {
    this.rollOver();
    return this.day;
  }

  // ---- counting ----

  /** A report came (the agent's, a hook's, the screen's): its usage's rise is counted. */
  reported(job: LiveJob): void {
    const usage = job.rec.report?.usage;
    if (usage) {
      const b = budgetOf(job);
      const r = risen(b.seen, usageTotals(usage));
      b.seen = r.seen;
      if (r.cost > 0 || r.tokens > 0) {
        this.spent(job, { cost: r.cost, tokens: r.tokens });
        this.check(job, this.dayTotals());
        const { daily, profiles } = this.parts.config;
        if (daily || profiles) this.checkSoon(); // the others of its day or profile too
      }
    }
    this.pauses.reported(job);
  }

  /** The job's process started: its running time counts from now. */
  started(job: LiveJob): void {
    this.since.set(job.rec.id, this.now());
  }

  /** The job ended: its running time is counted to now, and it is no longer paused. */
  ended(job: LiveJob): void {
    this.countTime(job);
    this.since.delete(job.rec.id);
    this.pauses.forget(job.rec.id);
    this.checkAll();
  }

  /** A job removed: what is kept of it in memory goes (its spend stays in the day's totals). */
  forget(id: string): void {
    this.since.delete(id);
    this.repos.delete(id);
    this.shown.delete(id);
    this.pauses.forget(id);
  }

  /**
   * Every job checked shortly, once for all the spend of that while: a spend can bring the day's
   * or a profile's budget to its end for every job in it, and a pass over every job on every
   * report would cost the square of the jobs.
   */
  private checkSoon(): void {
    this.checkTimer ??= setTimeout(() => {
      this.checkTimer = null;
      this.checkAll();
    }, CHECK_MS);
  }

  private tick(): void {
    for (const job of this.parts.registry.all()) if (job.rec.life === "running") this.countTime(job);
    this.checkAll();
  }

  private countTime(job: LiveJob): void {
    const now = this.now();
    const from = this.since.get(job.rec.id) ?? now;
    this.since.set(job.rec.id, now);
    if (now > from) this.spent(job, { minutes: (now - from) / 60000 });
  }

  private spent(job: LiveJob, d: Partial<Spent>): void {
    this.rollOver();
    const b = budgetOf(job);
    b.spent = plus(b.spent, d);
    const k = key(job.rec.profile, this.repoOf(job));
    const base = { day: this.day, profile: job.rec.profile, repo: this.repoOf(job) };
    this.totals.set(k, { ...base, ...plus(this.totals.get(k) ?? NOTHING, d) });
    this.unsaved.set(k, { ...base, ...plus(this.unsaved.get(k) ?? NOTHING, d) });
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
    this.parts.registry.noted(job, false); // its spend is written with its row
  }

  /** Writes the day's totals not yet written. */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const rows = [...this.unsaved.values()];
    this.unsaved.clear();
    try {
      this.parts.store.spend.add(rows);
    } catch (err) {
      console.error(`roost: could not save the day's spend (tried again shortly): ${(err as Error).message}`);
      for (const r of rows) this.unsaved.set(key(r.profile, r.repo), r);
      this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS * 5);
    }
  }

  /** A new day: its totals and notices begin empty (what the old day's not yet written is written first). */
  private rollOver(): void {
    const today = localDay(this.now());
    if (today === this.day) return;
    this.flush();
    this.day = today;
    this.load();
  }

  private load(): void {
    this.totals = new Map(this.parts.store.spend.since(this.day).map((r) => [key(r.profile, r.repo), r]));
    this.notices = new Set(this.parts.store.spend.notices(` ${this.day}`));
  }

  /** The job's repository: its worktree's, else the git top directory of where it runs; '' for none. */
  private repoOf(job: LiveJob): string {
    let repo = this.repos.get(job.rec.id);
    if (repo === undefined) {
      repo = job.rec.worktree?.repo ?? gitTop(job.rec.launch.cwd) ?? "";
      this.repos.set(job.rec.id, repo);
    }
    return repo;
  }

  // ---- what applies ----

  dayTotals(): DayTotals {
    this.rollOver();
    const rows = this.totals;
    const sum = (pick: (r: SpendRow) => boolean) =>
      [...rows.values()].filter(pick).reduce<Spent>((a, r) => plus(a, r), { ...NOTHING });
    return { total: () => sum(() => true), profile: (name) => sum((r) => r.profile === name) };
  }

  scopes(job: LiveJob, day = this.dayTotals()): ScopeView[] {
    return scopesOf(job.rec, this.parts.config, day);
  }

  /** The row's `budget`. */
  row(job: LiveJob): RowBudget {
    const day = this.dayTotals(); // rolled over to today: this.day is current
    return rowBudget(job.rec, this.scopes(job, day), this.day);
  }

  /** Every job checked: notices to say, running jobs to pause, rows whose state changed pushed. */
  checkAll(): void {
    const day = this.dayTotals();
    for (const job of this.parts.registry.all()) this.check(job, day);
  }

  /** One job checked: its notices said, paused if running with a budget spent, its row pushed if its state changed. */
  private check(job: LiveJob, day: DayTotals): void {
    const views = this.scopes(job, day);
    const running = job.rec.life === "running";
    if (running) for (const v of views) this.notice(job, v);
    const b = rowBudget(job.rec, views, this.day);
    if (this.shown.get(job.rec.id) !== b.state) {
      const first = !this.shown.has(job.rec.id);
      this.shown.set(job.rec.id, b.state);
      if (!first) this.parts.registry.noted(job, false);
    }
    if (!running) return;
    const spent = views.find((v) => v.share >= 1 && !exempt(job.rec, v.scope, this.day));
    if (spent)
      this.pauses.pause(
        job,
        spent,
        `${scopeName(spent, job.rec.id)} is spent (${spentWords(spent.used, spent.limit)})`,
      );
  }

  /** The notice at 80% and at 100% of a budget: once a day for each budget (a job's own: each of its limits). */
  private notice(job: LiveJob, v: ScopeView): void {
    if (v.share < 0.8) return;
    const spent = v.share >= 1;
    const what = v.scope === "job" ? `job:${job.rec.id}:${limitWords(v.limit)}` : v.key;
    const k = `${spent ? "spent" : "near"} ${what} ${this.day}`;
    if (this.notices.has(k)) return;
    this.notices.add(k);
    this.parts.store.spend.noticed(k);
    const name = scopeName(v, job.rec.id);
    const words = spentWords(v.used, v.limit);
    const text = spent
      ? `${name} is spent (${words}): ${v.scope === "job" ? job.rec.id : "its running jobs"} paused; ${howToRaise(v, job.rec.id)}`
      : `${name} is ${Math.floor(v.share * 100)}% spent (${words})`;
    this.parts.feed.record(job.rec.id, "budget", text, ROOST, spent ? "spent" : "near");
    const row = this.parts.registry.row(job);
    this.parts.notify.budget(spent ? "budget-exceeded" : "budget-warning", row, text);
  }

  // ---- the ops' ----

  /** `dispatch` in a spent scope (the day's, its profile's) is refused. */
  mayDispatch(profile: string): void {
    const day = this.dayTotals();
    const { daily, profiles } = this.parts.config;
    const views: ScopeView[] = [];
    if (daily) {
      const used = day.total();
      views.push({ scope: "daily", key: "daily", limit: daily, used, share: share(used, daily) });
    }
    const p = profiles?.[profile];
    const used = day.profile(profile);
    if (p) views.push({ scope: "profile", key: `profile:${profile}`, limit: p, used, share: share(used, p) });
    const spent = views.find((v) => v.share >= 1);
    if (spent)
      throw new RoostError(
        "policy",
        `${scopeName(spent, "")} is spent today (${spentWords(spent.used, spent.limit)}): no new job of ${profile} until it is raised; ${howToRaise(spent, "")}`,
      );
  }

  /** `respawn` of a job stopped for its budget: the budgets spent now no longer stop it today. */
  respawning(job: LiveJob): void {
    if (job.rec.stopReason !== "budget" && !this.pauses.has(job.rec.id)) return;
    this.pauses.forget(job.rec.id);
    const spent = this.scopes(job).filter((v) => v.share >= 1);
    if (spent.length === 0) return;
    const b = budgetOf(job);
    b.exempt = { scopes: spent.map((v) => v.scope), until: this.today };
    this.parts.registry.noted(job, true);
    this.parts.feed.record(
      job.rec.id,
      "budget",
      `respawned past ${spent.map((v) => scopeName(v, job.rec.id)).join(" and ")}: ${spent.length === 1 ? "it no longer stops" : "they no longer stop"} ${job.rec.id} today`,
      ROOST,
      "exempt",
    );
  }

  /** `budget`: the job's own budget set (what is given replaced); one stopped for its budget goes on if none is spent now. */
  async setOwn(job: LiveJob, limit: Limits): Promise<boolean> {
    const b = budgetOf(job);
    b.own = { ...(b.own ?? this.parts.config.job ?? {}), ...limit };
    // A raised budget is counted again from now: it no longer needs the respawn's exemption.
    if (b.exempt) b.exempt = { ...b.exempt, scopes: b.exempt.scopes.filter((s) => s !== "job") };
    this.parts.registry.changed(job, true);
    this.parts.feed.record(job.rec.id, "budget", `its own budget is now ${limitWords(b.own)}`, ROOST, "set");
    const stillSpent = this.scopes(job).some((v) => v.share >= 1 && !exempt(job.rec, v.scope, this.today));
    if (!stillSpent) this.pauses.forget(job.rec.id);
    this.checkAll();
    if (stillSpent || job.rec.life !== "stopped" || job.rec.stopReason !== "budget") return false;
    await this.parts.respawn(job);
    return true;
  }

  /** `spend`: the days' totals, newest first, and the budgets roost.json sets. */
  spend(days: number): OpResult<"spend"> {
    this.rollOver();
    this.flush();
    const from = new Date(this.now());
    from.setDate(from.getDate() - (days - 1));
    const byDay = new Map<string, OpResult<"spend">["days"][number]>();
    for (const r of this.parts.store.spend.since(localDay(from.getTime()))) {
      let d = byDay.get(r.day);
      if (!d) {
        d = { day: r.day, total: { ...NOTHING }, profiles: {}, repositories: {} };
        byDay.set(r.day, d);
      }
      const s: Spent = { cost: r.cost, tokens: r.tokens, minutes: r.minutes };
      d.total = plus(d.total, s);
      d.profiles[r.profile] = plus(d.profiles[r.profile] ?? NOTHING, s);
      d.repositories[r.repo] = plus(d.repositories[r.repo] ?? NOTHING, s);
    }
    return { today: this.day, days: [...byDay.values()], limits: this.parts.config };
  }
}

/** The git top directory of `dir` (the nearest with a `.git`), found without running git; null for none. */
function gitTop(dir: string): string | null {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, ".git"))) return d;
    if (path.dirname(d) === d) return null;
  }
}

/** The job's kept budget, made empty on first use. */
function budgetOf(job: LiveJob): JobBudget {
  if (!job.rec.budget) job.rec.budget = emptyBudget();
  return job.rec.budget;
}
