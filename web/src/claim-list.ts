/**
 * A session's tasks on its job's page: those it holds (claimed), those sent to it and not yet
 * claimed, and those it did, with what came of them. From the board (board-state.ts), so live;
 * shown only while there is one.
 */
import { taskView } from "../../sdk/ts/protocol/board-view.js";
import type { BoardTask } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h, Shown } from "./dom.js";

/** Its part in a task, or null when it has none: holds it, was sent it, did it, held it when dropped. */
function partIn(t: BoardTask, id: string): string | null {
  if (t.owner?.id === id)
    return t.state === "claimed" ? "holds it" : t.state === "done" ? "did it" : "held it (dropped)";
  if (t.assigned?.id === id) return "sent to it, not yet claimed";
  return null;
}

export class ClaimList {
  readonly el = h("section", { class: "claims-section", "aria-labelledby": "claims-title", hidden: true });
  private readonly list = h("ul", { class: "claims", "aria-label": "Its tasks" });
  private readonly unsubscribe: () => void;
  private readonly shown = new Shown();

  constructor(
    private readonly ctx: Ctx,
    private readonly id: string,
  ) {
    this.el.append(
      h(
        "h2",
        { id: "claims-title" },
        "Tasks ",
        h("span", { class: "muted small" }, "of the board: held, sent to it, done"),
      ),
      this.list,
    );
    this.render();
    this.unsubscribe = ctx.board.subscribe(() => this.render());
  }

  dispose(): void {
    this.unsubscribe();
  }

  private render(): void {
    const board = this.ctx.board.tasks ?? [];
    // Held and sent first (what it has to do), then what it did; each oldest first.
    const mine = board
      .map((t) => ({ t, part: partIn(t, this.id) }))
      .filter((x): x is { t: BoardTask; part: string } => x.part !== null)
      .sort((a, b) => Number(a.t.state === "done") - Number(b.t.state === "done"));
    const shows = mine.map(({ t, part }) => [t.id, t.title, t.state, part, t.result, t.after]);
    if (!this.shown.changed(shows)) return;
    this.el.hidden = mine.length === 0;
    this.list.replaceChildren(
      ...mine.map(({ t, part }) => {
        const view = taskView(t, board);
        return h(
          "li",
          { class: "claim", "data-task": String(t.id), "data-state": view },
          h("a", { href: `#/board?task=${t.id}` }, `#${t.id} ${t.title}`),
          h("span", { class: "muted" }, ` · ${part}`),
          t.result ? h("span", { class: "claim-result" }, ` → ${t.result}`) : null,
        );
      }),
    );
  }
}
