/**
 * What a row says in words: its name, its state ("blocked", "your turn", "failed"), its context
 * use. The state's word and tone are the shared module's (sdk/ts/protocol/row-state.ts), so the
 * hub says what `roost ls` says; only how it is drawn is the hub's.
 */
import { bytesText, cpuText } from "../../sdk/ts/protocol/resources-view.js";
import { TONES, type Tone, type ViewState, viewState } from "../../sdk/ts/protocol/row-state.js";
import type { Row } from "./api.js";
import { ago } from "./dom.js";
import { isBudgetStopped } from "./row-budget.js";

export { needsYou, triageRank, viewState } from "../../sdk/ts/protocol/row-state.js";

export const displayName = (row: Row) => row.name || row.id;

/** The row's state word, its tone (the CSS class `t-<tone>`), and the exit when it ended with one. */
export function stateOf(row: Row): { word: ViewState; tone: Tone; exit: string | null } {
  const word = viewState(row);
  const exit = row.life === "exited" && row.exitCode !== null ? `exit ${row.exitCode}` : null;
  return { word, tone: TONES[word], exit };
}

/** A job put to sleep (stopped as idle, docs/budgets.md): its row says "asleep", its respawn "Wake". */
export const isAsleep = (row: Row) => row.life === "stopped" && row.stopReason === "idle";

/** The word the row's badge shows: its state's, "asleep" for a job put to sleep, "budget spent" for one paused by its budget. */
export const badgeWord = (row: Row, word: ViewState): string =>
  isAsleep(row) ? "asleep" : isBudgetStopped(row) ? "budget spent" : word;

export const isRunning = (row: Row) => row.life === "running" || row.life === "starting";

/** "context 42% (84k/200k)", or null when the agent reports nothing of it. */
export function contextWords(row: Row): string | null {
  const c = row.context;
  if (!c) return null;
  const pct = c.percent ?? (c.tokens && c.window ? (100 * c.tokens) / c.window : undefined);
  const tokens = c.tokens !== undefined ? `${Math.round(c.tokens / 1000)}k` : "";
  const window = c.window !== undefined ? `/${Math.round(c.window / 1000)}k` : "";
  if (pct === undefined && !tokens) return null;
  return `context ${pct !== undefined ? `${Math.round(pct)}%` : ""}${tokens ? ` (${tokens}${window})` : ""}`.trim();
}

/**
 * "$0.0113": what the agent says the job has cost so far (`usage.cost.total`, as pi's extension
 * sums it, or a plain `usage.cost`); null when it says nothing of it. Cents below a cent are kept.
 */
export function costWords(row: Row): string | null {
  const cost = (row.usage as { cost?: unknown } | null)?.cost;
  const total = typeof cost === "number" ? cost : (cost as { total?: unknown } | undefined)?.total;
  if (typeof total !== "number" || !Number.isFinite(total) || total < 0) return null;
  return `$${total < 0.01 ? total.toFixed(4) : total.toFixed(2)}`;
}

export { resourcesText } from "../../sdk/ts/protocol/resources-view.js";

/** What a row's resources are, in full, for its title: processes, CPU time, PSS, quiet since. */
export function resourcesTitle(row: Row): string | null {
  const r = row.resources;
  if (!r) return null;
  const quiet = r.activeAt ? `; its screen or reports last changed ${ago(r.activeAt)} ago` : "";
  return (
    `${r.procs} process${r.procs === 1 ? "" : "es"}: CPU ${cpuText(r.cpu)} of one core, ` +
    `${Math.round(r.cpuSeconds)} s in all; RSS ${bytesText(r.rss)}, PSS ${bytesText(r.pss)}${quiet}`
  );
}
