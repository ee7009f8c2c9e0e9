/**
 * A session's watches not yet fired, on its job's page: whom it waits to hear about, for what,
 * and until when (a watch expires after 12 hours). From its row (`watches`), so live; shown only
 * while there is one.
 */
import { dueIn } from "../../sdk/ts/protocol/time-words.js";
import type { Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h, Shown } from "./dom.js";

const WORDS = { idle: "is next idle", ended: "has ended", handback: "have handed back" } as const;
/** A watch on its own children (`watch {children: true}`): its `id` is the row's own. */
const CHILDREN_WORDS = { idle: "are in", ended: "have all ended", handback: "are all in" } as const;

export class WatchList {
  readonly el = h("section", { class: "watches-section", "aria-labelledby": "watches-title", hidden: true });
  private readonly list = h("ul", { class: "watches", "aria-label": "Its watches" });
  private readonly shown = new Shown();

  constructor(private readonly ctx: Ctx) {
    this.el.append(
      h(
        "h2",
        { id: "watches-title" },
        "Watching ",
        h("span", { class: "muted small" }, "it is told once, by a notice, when"),
      ),
      this.list,
    );
  }

  update(row: Row): void {
    if (!this.shown.changed(row.watches)) return;
    this.el.hidden = row.watches.length === 0;
    this.list.replaceChildren(
      ...row.watches.map((w) => {
        const other = this.ctx.live.rows.get(w.id);
        const own = w.id === row.id;
        return h(
          "li",
          { class: "watch" },
          own
            ? "its children"
            : h("a", { href: `#/jobs/${encodeURIComponent(w.id)}` }, other ? other.name || w.id : w.name),
          own ? ` ${CHILDREN_WORDS[w.when]}` : ` (${w.id}) ${WORDS[w.when]}`,
          h(
            "span",
            { class: "muted small", title: w.expiresAt },
            ` · expires ${dueIn(w.expiresAt, Date.now(), " ")}`,
          ),
        );
      }),
    );
  }
}
