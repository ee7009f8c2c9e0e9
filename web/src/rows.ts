/** The rows view (`#/`): every job, live; pinned first, then the user's order (drag, or Alt+↑/↓). */
import { op, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { RowView } from "./row.js";
import { RowDrag } from "./row-drag.js";

export interface View {
  el: HTMLElement;
  dispose(): void;
  /** The row the keyboard acts on. */
  current?(): RowView | null;
  /** j / k. */
  step?(delta: number): void;
}

export function rowsView(ctx: Ctx): View {
  return new RowsView(ctx);
}

/** What the view shows when there are no jobs: a way to dispatch one, for who may. */
function emptyNote(ctx: Ctx): HTMLElement {
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

/** One RowView per job, kept in the live order as rows come, go and move. */
class RowsView implements View {
  readonly el: HTMLElement;
  private readonly views = new Map<string, RowView>();
  private readonly list = h("ol", { class: "rows", "aria-label": "Jobs" });
  private readonly empty: HTMLElement;
  private readonly drag: RowDrag;
  /** The row focused last: the keyboard's, once the focus has left the rows. */
  private lastFocused: string | null = null;
  private readonly unsubscribe: () => void;

  constructor(private readonly ctx: Ctx) {
    this.empty = emptyNote(ctx);
    this.el = h("section", { class: "view rows-view", "aria-labelledby": "rows-title" }, [
      h("h1", { id: "rows-title", class: "sr-only" }, "Jobs"),
      this.list,
      this.empty,
    ]);
    this.drag = new RowDrag(this.list, {
      order: () => this.order(),
      reorder: (ids, moved) => void this.reorder(ids, moved),
    });
    this.render();
    this.unsubscribe = ctx.live.subscribe(() => this.render());
  }

  dispose(): void {
    this.unsubscribe();
  }

  current(): RowView | null {
    const active = document.activeElement;
    for (const v of this.views.values()) if (active && v.el.contains(active)) return v;
    return (this.lastFocused && this.views.get(this.lastFocused)) || null;
  }

  step(delta: number): void {
    const order = this.order();
    if (!order.length) return;
    const cur = this.current();
    const i = cur ? order.indexOf(cur.row.id) : -1;
    const next =
      i < 0 ? (delta > 0 ? 0 : order.length - 1) : Math.max(0, Math.min(order.length - 1, i + delta));
    const v = this.views.get(order[next]!);
    v?.el.focus();
    v?.el.scrollIntoView({ block: "nearest" });
  }

  /** The job ids in the order shown. */
  private order(): string[] {
    return this.ctx.live.sorted().map((r) => r.id);
  }

  /** The rows as they are now: views made, updated, put in order, or removed. */
  private render(): void {
    const rows = this.ctx.live.sorted();
    const active = document.activeElement as HTMLElement | null;
    let prev: Element | null = null;
    for (const row of rows) {
      const v = this.viewOf(row);
      const want: Element | null = prev ? prev.nextElementSibling : this.list.firstElementChild;
      if (want !== v.el) this.list.insertBefore(v.el, want);
      prev = v.el;
    }
    this.removeGone(new Set(rows.map((r) => r.id)));
    // Moving an element takes the focus from it: it goes back where it was.
    if (active && active !== document.activeElement && this.el.contains(active))
      active.focus({ preventScroll: true });
    this.empty.hidden = rows.length > 0;
    this.list.hidden = rows.length === 0;
  }

  /** The row's view, updated; or a new one, with its grip and its focus remembered. */
  private viewOf(row: Row): RowView {
    const had = this.views.get(row.id);
    if (had) {
      had.update(row);
      return had;
    }
    const v = new RowView(row, this.ctx, { move: (id, delta) => this.move(id, delta) });
    this.views.set(row.id, v);
    if (!this.ctx.readOnly()) this.drag.wire(v);
    v.el.addEventListener("focusin", () => {
      this.lastFocused = row.id;
    });
    return v;
  }

  private removeGone(seen: Set<string>): void {
    for (const [id, v] of this.views)
      if (!seen.has(id)) {
        v.el.remove();
        this.views.delete(id);
      }
  }

  /** Moves a row by `delta` places (its buttons, Alt+↑/↓). */
  private move(id: string, delta: number): void {
    const ids = this.order();
    const from = ids.indexOf(id);
    const to = Math.max(0, Math.min(ids.length - 1, from + delta));
    if (from < 0 || from === to) return;
    ids.splice(from, 1);
    ids.splice(to, 0, id);
    void this.reorder(ids, id);
  }

  private async reorder(ids: string[], moved: string): Promise<void> {
    // Shown at once; the daemon's pushes confirm it (or put it back).
    ids.forEach((id, i) => {
      const r = this.ctx.live.rows.get(id);
      if (r) this.ctx.live.rows.set(id, { ...r, order: i });
    });
    this.render();
    this.views.get(moved)?.el.focus();
    try {
      await op("reorder", { ids });
      this.ctx.announce(`Moved ${moved} to place ${ids.indexOf(moved) + 1}`);
    } catch (err) {
      this.views.get(moved)?.setStatus(`Could not move: ${(err as Error).message}`, "error");
    }
  }
}
