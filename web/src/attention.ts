/**
 * Attention: the jobs that need you (blocked or failed, `needsYou`), and what the concierge said
 * it needs of you (its `need`, raised as a blocked job is), counted in the title and the header. A job turning so, or a blocked job asking something new, is said once to screen readers;
 * and, while the page is in the background and the browser allows it, raised as a notification,
 * as are the jobs turning "your turn" or done when the user asked for those too (prefs.ts).
 */
import type { ViewState } from "../../sdk/ts/protocol/row-state.js";
import type { Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import type { Live } from "./live.js";
import { showNote } from "./notify.js";
import { type Prefs, prefs } from "./prefs.js";
import { displayName, needsYou, viewState } from "./row-words.js";

/** How many jobs need you. */
export const needYouCount = (live: Live) => {
  let n = 0;
  for (const row of live.rows.values()) if (needsYou(row)) n++;
  return live.concierge?.need ? n + 1 : n;
};

/** "(2) roost" in the title. */
export function showCount(count: number): void {
  const base = document.title.replace(/^\(\d+\) /, "");
  document.title = count ? `(${count}) ${base}` : base;
}

/** Whether notifications can be shown at all here (a browser on https or localhost). */
export const canNotify = () => "Notification" in window;

/** Which of the user's notification choices a state falls under; null: never notified. */
function kindOf(state: ViewState): keyof Prefs["notify"] | null {
  if (state === "blocked" || state === "failed") return "need";
  if (state === "your turn") return "turn";
  if (state === "done") return "done";
  return null;
}

/** The notification's title and body for a row that turned `state`. */
function message(row: Row, state: ViewState): { title: string; body: string } {
  const name = displayName(row);
  if (state === "blocked")
    return { title: `${name} is blocked`, body: row.question ?? "it is waiting for you" };
  if (state === "failed") return { title: `${name} failed`, body: row.error ?? row.summary ?? "it failed" };
  if (state === "your turn") return { title: `${name}: your turn`, body: row.summary ?? "it waits for you" };
  return { title: `${name} is done`, body: row.summary ?? "it finished" };
}

/**
 * What changed for the user: the state's word, or a blocked row's question (a terminal that asked
 * "Continue? (y/n)" then "Overwrite? (y/n)" stays blocked, and asks something new).
 */
function turned(before: Row, after: Row): ViewState | null {
  const now = viewState(after);
  if (now !== viewState(before)) return now;
  if (now === "blocked" && (after.question ?? "") !== (before.question ?? "")) return now;
  return null;
}

/** Says (and notifies of) each job that turns so that the user may act. */
export function watchTurns(ctx: Ctx): void {
  ctx.live.onRow(({ before, after }) => {
    if (!before) return; // the first rows, or a new job: nothing turned
    const state = turned(before, after);
    const kind = state && kindOf(state);
    if (!state || !kind) return;
    const { title, body } = message(after, state);
    if (kind === "need") ctx.announce(`${title}: ${body}`);
    if (prefs().notify[kind]) notify(after, title, body);
  });
}

/** The concierge's need, said once and notified (a need of the user's, as a blocked job is). */
export function watchConcierge(ctx: Ctx): void {
  let said: string | null = null;
  ctx.live.onConcierge((s) => {
    const at = s.need?.at ?? null;
    if (!s.need || at === said) return;
    said = at;
    const title = "The concierge needs you";
    ctx.announce(`${title}: ${s.need.text}`);
    if (prefs().notify.need) notify("concierge", title, s.need.text, "#/concierge");
  });
}

function notify(row: Row | "concierge", title: string, body: string, hash?: string): void {
  if (!canNotify() || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible" && document.hasFocus()) return; // the page says it already
  const id = row === "concierge" ? row : row.id;
  // A blocked row's through the service worker, its choices as actions (notify.ts).
  void showNote(row === "concierge" ? null : row, title, body, `roost-${id}`, () => {
    window.focus();
    location.hash = hash ?? `#/jobs/${id}`;
  });
}
