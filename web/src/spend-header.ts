/**
 * Today's spend in the header, a link to the Spend page: "$3.20 of $20 today" beside the day's
 * budget when roost.json sets one (each dimension it limits), else "$3.20 today"; nothing while
 * nothing was spent and no budget is set. Warn from 80% of the day's budget, alarm at 100%.
 */
import type { Ctx } from "./ctx.js";
import { spendStore } from "./spend-store.js";
import { amount, ofText, type Share, shares, sharesTitle, spentText, toneOf } from "./spend-words.js";

export function followSpend(ctx: Ctx, el: HTMLAnchorElement): void {
  const store = spendStore(ctx);
  const show = () => {
    const day = store.today();
    const daily = store.data?.limits.daily;
    const spent = day?.total;
    const limited = shares(daily, spent);
    const text = !spent ? "" : limited.length ? limitedText(limited) : unlimitedText(spent);
    el.hidden = !text;
    if (el.textContent !== text) el.textContent = text;
    const tone = toneOf(limited[0]?.frac ?? 0);
    el.className = `spend s-${tone}`;
    const what = spent ? spentText(spent) : "";
    el.title = limited.length
      ? `Spent today: ${what}; the day's budget: ${sharesTitle(limited)}. The Spend page: by day, profile and repository`
      : `Spent today: ${what}. The Spend page: by day, profile and repository`;
    el.setAttribute(
      "aria-label",
      `Spend: ${text}${tone === "ok" ? "" : tone === "warn" ? ", near the day's budget" : ", the day's budget is spent"}`,
    );
  };
  store.subscribe(show);
  show();
}

/** "$3.20 of $20 today", and "· 40 of 120 min" for each other dimension the day's budget limits. */
function limitedText(list: Share[]): string {
  const byDim = [...list].sort((a, b) => order(a) - order(b));
  return `${byDim.map((s) => ofText(s.dim, s.used, s.limit)).join(" · ")} today`;
}

const order = (s: Share) => ["cost", "tokens", "minutes"].indexOf(s.dim);

/** "$3.20 today" (or its tokens, for agents that report no cost); minutes alone say nothing here. */
function unlimitedText(spent: { cost: number; tokens: number }): string {
  if (spent.cost > 0) return `${amount("cost", spent.cost)} today`;
  if (spent.tokens > 0) return `${amount("tokens", spent.tokens)} today`;
  return "";
}
