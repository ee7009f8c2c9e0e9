/** The jobs view's note when there are no jobs: a way to dispatch one, for who may. */
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
