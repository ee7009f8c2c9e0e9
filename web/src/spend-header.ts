/**
 * Today's spend in the header, on the Spend tab (which opens the Spend page): "$3.20 of $20"
 * beside the day's budget when roost.json sets one (each dimension it limits), else "$3.20";
 * nothing while nothing was spent and no budget is set. Muted while all is well, amber from 80% of
 * the day's budget, red at 100%. Said whole in its title and to a screen reader ("Spend: $3.20 of
 * $20 today, near the day's budget"): the tab's room is short, "today" is left to them.
 */
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { spendStore } from "./spend-store.js";
import {
  amount,
  ofText,
  type Share,
  type Spent,
  shares,
  sharesTitle,
  spentText,
  toneOf,
} from "./spend-words.js";

const TONE_WORDS = { ok: "", warn: ", near the day's budget", alarm: ", the day's budget is spent" };

export function followSpend(ctx: Ctx, count: HTMLElement): void {
  const store = spendStore(ctx);
  const show = () => {
    const spent = store.today()?.total;
    const limited = shares(store.data?.limits.daily, spent);
    const text = !spent ? "" : limited.length ? limitedText(limited) : unlimitedText(spent);
    const tone = toneOf(limited[0]?.frac ?? 0);
    count.hidden = !text;
    if (count.textContent !== text) {
      // "of $20" and what follows in a part of its own, which a phone leaves out (its tabs' line is full).
      const cut = text.indexOf(" of ");
      count.replaceChildren(
        cut < 0 ? text : text.slice(0, cut),
        cut < 0 ? "" : h("span", { class: "spend-of" }, text.slice(cut)),
      );
    }
    count.className = `tab-count spend-count s-${tone}`;
    const tab = count.parentElement;
    if (!tab) return;
    tab.setAttribute("aria-label", text ? `Spend: ${text} today${TONE_WORDS[tone]}` : "Spend");
    tab.title = !spent
      ? "What the agents cost, by day, profile and repository"
      : `Spent today: ${spentText(spent)}${limited.length ? `; the day's budget: ${sharesTitle(limited)}` : ""}. ` +
        "The Spend page: by day, profile and repository";
  };
  store.subscribe(show);
  show();
}

/** "$3.20 of $20", and "· 40 of 120 min" for each other dimension the day's budget limits. */
function limitedText(list: Share[]): string {
  const order = (s: Share) => ["cost", "tokens", "minutes"].indexOf(s.dim);
  return [...list]
    .sort((a, b) => order(a) - order(b))
    .map((s) => ofText(s.dim, s.used, s.limit))
    .join(" · ");
}

/** "$3.20" (or its tokens, for agents that report no cost); minutes alone say nothing here. */
function unlimitedText(spent: Spent): string {
  if (spent.cost > 0) return amount("cost", spent.cost);
  if (spent.tokens > 0) return amount("tokens", spent.tokens);
  return "";
}
