/**
 * The page's keyboard shortcuts (the list is in help.ts). Off while a dialog is open or the user
 * types in a field or the terminal; Alt+arrows are the focused row's own, and the arrows act on
 * rows only from a row (elsewhere they scroll): ↑ / ↓ move between them, → / ← fold them.
 */
import type { Ctx } from "./ctx.js";
import { typing } from "./dom.js";
import { openHelp } from "./help.js";
import type { View } from "./view.js";

/** How long after `g` its second key counts. */
const G_WINDOW_MS = 1500;
/** Where `g` then a key goes (`h`: home, the jobs, as `j`). */
const GO_TO: Record<string, string> = {
  e: "#/events",
  b: "#/board",
  s: "#/schedules",
  q: "#/queue",
  $: "#/spend",
  j: "#/",
  h: "#/",
};

export function bindShortcuts(ctx: Ctx, view: () => View | null): void {
  let gAt = 0;
  document.addEventListener("keydown", (ev) => {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey) return;
    if (document.querySelector("dialog[open]")) return;
    if (typing(ev.target)) return;
    const cur = view()?.current?.() ?? null;
    if (ev.altKey) return; // Alt+arrows: the row's own handler
    const g = Date.now() - gAt < G_WINDOW_MS;
    gAt = 0;
    if (g && Object.hasOwn(GO_TO, ev.key)) {
      ev.preventDefault();
      location.hash = GO_TO[ev.key]!;
      return;
    }
    switch (ev.key) {
      case "g":
        gAt = Date.now();
        return;
      case "?":
        openHelp();
        break;
      case "j":
      case "k":
        view()?.step?.(ev.key === "j" ? 1 : -1);
        break;
      case "ArrowDown":
      case "ArrowUp":
        if (!(ev.target instanceof HTMLLIElement) || !view()?.step) return;
        view()?.step?.(ev.key === "ArrowDown" ? 1 : -1);
        break;
      case "ArrowRight":
      case "ArrowLeft":
        // A tree's keys, from a row: show what is under it, or fold it (then up to its parent).
        if (!(ev.target instanceof HTMLLIElement) || !view()?.fold) return;
        view()?.fold?.(ev.key === "ArrowRight");
        break;
      case "Enter":
        if (!(ev.target instanceof HTMLLIElement) || !cur) return;
        // With the preview pane (a wide screen), Enter answers there; else the job's page.
        if (!view()?.enter?.()) location.hash = `#/jobs/${cur.row.id}`;
        break;
      case "r":
        // Only where there is a Reply: a running job's, for who may act.
        if (!cur?.openReply()) return;
        break;
      case "x":
        if (!cur || ctx.readOnly() || !view()?.toggleSelected) return;
        view()?.toggleSelected?.();
        break;
      case "/":
        if (!view()?.focusSearch) {
          // The router draws the jobs on this event first (its listener came first).
          window.addEventListener("hashchange", () => view()?.focusSearch?.(), { once: true });
          location.hash = "#/";
        } else view()?.focusSearch?.();
        break;
      case "d":
        if (ctx.readOnly()) return;
        ctx.openDispatch();
        break;
      case "p":
        if (!cur || ctx.readOnly()) return;
        cur.togglePin();
        break;
      case "Escape":
        if (view()?.clearSelection?.()) break;
        if (!location.hash.startsWith("#/jobs/")) return;
        location.hash = "#/";
        break;
      default:
        if (/^[1-9]$/.test(ev.key) && cur && !ctx.readOnly()) {
          cur.choose(Number(ev.key));
          break;
        }
        return;
    }
    ev.preventDefault();
  });
}
