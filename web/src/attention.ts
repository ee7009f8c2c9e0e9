/**
 * Attention: the jobs that need you (blocked, failed, exited with an error), counted in the title
 * and the header. A job turning so is said once to screen readers and, while the page is in the
 * background and the browser allows it, raised as a notification.
 */
import type { Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import type { Live } from "./live.js";
import { displayName, needsAttention } from "./row-words.js";

/** "(2) roost" in the title and "2 need you" in the header (hidden at 0). */
export function showAttention(live: Live, link: HTMLAnchorElement): void {
  const count = [...live.rows.values()].filter(needsAttention).length;
  const base = document.title.replace(/^\(\d+\) /, "");
  document.title = count ? `(${count}) ${base}` : base;
  link.hidden = count === 0;
  link.textContent = `${count} need${count === 1 ? "s" : ""} you`;
}

/** Whether "Notify me" has anything to ask. */
export const mayAskToNotify = () => "Notification" in window && Notification.permission === "default";

export async function askToNotify(): Promise<void> {
  await Notification.requestPermission();
}

/** Says (and notifies of) each job that turns blocked or failed. */
export function watchTurns(ctx: Ctx): void {
  ctx.live.onRow(({ before, after }) => {
    if (!before) return; // the first rows, or a new job: nothing turned
    const turned = (after.state === "blocked" || after.state === "failed") && before.state !== after.state;
    if (!turned) return;
    const what =
      after.state === "blocked" ? (after.question ?? "it is waiting for you") : (after.error ?? "it failed");
    ctx.announce(`${displayName(after)} is ${after.state}: ${what}`);
    notify(after, what);
  });
}

function notify(row: Row, what: string): void {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible" && document.hasFocus()) return; // the page says it already
  try {
    const n = new Notification(`${displayName(row)} is ${row.state}`, { body: what, tag: `roost-${row.id}` });
    n.onclick = () => {
      window.focus();
      location.hash = `#/jobs/${row.id}`;
      n.close();
    };
  } catch {
    // some browsers only notify from a service worker
  }
}
