/**
 * The Spend page (`#/spend`): what the agents cost, the last 7 days (the daemon machine's dates),
 * newest first; each day's total (cost, tokens, minutes), by profile and by repository, and for
 * today the budgets of roost.json beside it (the day's, each profile's) as bars, "x of y". Live
 * from the spend store (spend-store.ts), which asks the daemon again as the rows spend.
 */
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { SPEND_DAYS, type SpendAnswer, type SpendDay, type SpendStore, spendStore } from "./spend-store.js";
import {
  amount,
  type Limits,
  limitsText,
  ofText,
  type Share,
  type Spent,
  shares,
  spentText,
  toneOf,
} from "./spend-words.js";
import type { View } from "./view.js";

export function spendView(ctx: Ctx): View {
  return new SpendView(ctx);
}

class SpendView implements View {
  readonly el = h("section", { class: "view spend-view", "aria-labelledby": "spend-title" });
  private readonly limits = h("p", { class: "spend-limits" });
  private readonly error = h("p", { class: "error", hidden: true });
  private readonly empty = h(
    "p",
    { class: "empty", hidden: true },
    `Nothing spent in the last ${SPEND_DAYS} days.`,
  );
  private readonly list = h("ol", { class: "spend-days", "aria-label": "Each day's spend, newest first" });
  private readonly store: SpendStore;
  private readonly off: () => void;

  constructor(ctx: Ctx) {
    this.store = spendStore(ctx);
    this.el.append(
      h(
        "div",
        { class: "view-head" },
        h("h1", { id: "spend-title" }, "Spend"),
        h("span", { class: "muted small" }, `what the agents cost, the last ${SPEND_DAYS} days`),
      ),
      this.limits,
      this.error,
      this.empty,
      this.list,
    );
    this.off = this.store.subscribe(() => this.render());
    // The store may have loaded before this page opened: shown at once, and asked afresh.
    this.render();
    this.store.soon();
  }

  dispose(): void {
    this.off();
  }

  private render(): void {
    const data = this.store.data;
    this.error.hidden = !this.store.error;
    this.error.textContent = this.store.error ? `Could not load the spend: ${this.store.error}` : "";
    this.list.toggleAttribute("aria-busy", !data);
    if (!data) return;
    this.limits.replaceChildren(...limitsWords(data.limits));
    this.empty.hidden = data.days.length > 0;
    this.list.replaceChildren(...data.days.map((d) => this.day(d, data)));
  }

  private day(d: SpendDay, data: SpendAnswer): HTMLLIElement {
    const today = d.day === data.today;
    const id = `spend-${d.day}`;
    const dailyShares = today ? shares(data.limits.daily, d.total) : [];
    return h(
      "li",
      { class: `spend-day${today ? " today" : ""}`, "data-day": d.day, "aria-labelledby": id },
      h(
        "div",
        { class: "spend-day-head" },
        h("h2", { id }, dayName(d.day, data.today), " ", h("span", { class: "muted small" }, d.day)),
        h("span", { class: "spend-total" }, spentText(d.total)),
      ),
      dailyShares.length
        ? h(
            "div",
            { class: "spend-bars" },
            dailyShares.map((s) => bar("the day", s)),
          )
        : null,
      table(
        "Profile",
        `${dayName(d.day, data.today)}: by profile`,
        d.profiles,
        (name) => name,
        today ? (name) => data.limits.profiles?.[name] : undefined,
      ),
      table("Repository", `${dayName(d.day, data.today)}: by repository`, d.repositories, repoName),
    );
  }
}

/** roost.json's budgets, or that it sets none. */
function limitsWords(limits: SpendAnswer["limits"]): (Node | string)[] {
  const parts: string[] = [];
  if (limits.daily) parts.push(`the day ${limitsText(limits.daily)}`);
  for (const [name, l] of Object.entries(limits.profiles ?? {})) parts.push(`${name} ${limitsText(l)} a day`);
  if (limits.job) parts.push(`each job ${limitsText(limits.job)} (unless dispatched with its own)`);
  if (!parts.length)
    return [
      "No budgets in roost.json: a job's own budget is set when dispatched, or with Budget… on its row.",
    ];
  return [h("strong", null, "Budgets: "), parts.join(" · ")];
}

const DAY_MS = 86_400_000;

/** "Today", "Yesterday", else the weekday ("Wednesday"): the days are the daemon machine's. */
function dayName(day: string, today: string): string {
  const diff = Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${day}T00:00:00Z`)) / DAY_MS);
  if (diff === 0) return "Today";
  if (diff === 1) return "Yesterday";
  return new Date(`${day}T12:00:00Z`).toLocaleDateString(undefined, { weekday: "long", timeZone: "UTC" });
}

/** A repository's name: its directory's, the whole path in its title; `""` is none. */
function repoName(path: string): Node | string {
  if (!path) return h("span", { class: "muted" }, "no repository");
  const base = path.replace(/\/+$/, "").split("/").pop() || path;
  return h("span", { title: path }, base);
}

/** "the day" $3.20 of $20 [████░░]: one dimension of a budget, its share as a bar. */
function bar(label: string, s: Share): HTMLElement {
  const fill = h("span", { class: "fill" });
  fill.style.width = `${Math.min(100, Math.round(s.frac * 100))}%`;
  return h(
    "div",
    { class: `spend-bar s-${toneOf(s.frac)}` },
    h("span", { class: "spend-bar-label" }, label),
    h("span", { class: "track", role: "img", "aria-label": `${Math.round(s.frac * 100)}%` }, fill),
    h("span", { class: "spend-bar-text" }, `${ofText(s.dim, s.used, s.limit)}`),
  );
}

/** A table of a day's spend by profile or by repository, the most costly first; null when empty. */
function table(
  head: string,
  caption: string,
  by: Record<string, Spent>,
  name: (key: string) => Node | string,
  limitOf?: (key: string) => Limits | undefined,
): HTMLElement | null {
  const keys = Object.keys(by).sort(
    (a, b) => by[b]!.cost - by[a]!.cost || by[b]!.tokens - by[a]!.tokens || a.localeCompare(b),
  );
  if (!keys.length) return null;
  const withBudget = !!limitOf && keys.some((k) => limitOf(k));
  // A fifth column always, empty where no budget applies: both tables keep the same columns.
  return h(
    "table",
    { class: "spend-table" },
    h("caption", { class: "sr-only" }, caption),
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        h("th", { scope: "col", class: "name-col" }, head),
        h("th", { scope: "col", class: "num" }, "Cost"),
        h("th", { scope: "col", class: "num" }, "Tokens"),
        h("th", { scope: "col", class: "num" }, "Time"),
        h("th", { scope: "col", class: "budget-col" }, withBudget ? "Budget today" : ""),
      ),
    ),
    h(
      "tbody",
      null,
      keys.map((k) => {
        const s = by[k]!;
        const limited = withBudget ? shares(limitOf?.(k), s) : [];
        return h(
          "tr",
          { "data-key": k },
          h("th", { scope: "row" }, name(k)),
          h("td", { class: "num" }, amount("cost", s.cost)),
          h("td", { class: "num" }, s.tokens ? amount("tokens", s.tokens).replace(" tokens", "") : "—"),
          h("td", { class: "num" }, amount("minutes", s.minutes)),
          h(
            "td",
            { class: "budget-col" },
            limited.length ? limited.map((x) => bar("", x)) : withBudget ? "—" : "",
          ),
        );
      }),
    ),
  );
}
