/** The jobs view's notes: no jobs (a way to dispatch one, for who may), or none the filter shows. */
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";

/** What the view shows when there are no jobs: a way to dispatch one, for who may. */
export function emptyNote(ctx: Ctx): HTMLElement {
  return h(
    "div",
    { class: "empty" },
    h("p", null, "No jobs yet."),
    ctx.readOnly() ? null : dispatchHint(ctx),
  );
}

function dispatchHint(ctx: Ctx): HTMLElement {
  return h(
    "p",
    null,
    h("button", { type: "button", class: "primary", onclick: () => ctx.openDispatch() }, "Dispatch a job"),
    " or press ",
    h("kbd", null, "d"),
    ".",
  );
}

/** What the view shows when the filter hides every job: a way to clear it. */
export function noneMatchNote(clear: () => void): HTMLElement {
  return h(
    "div",
    { class: "empty none-match" },
    h("p", null, "No job matches the filter."),
    h("p", null, h("button", { type: "button", onclick: clear }, "Clear filter")),
  );
}
