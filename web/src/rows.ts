/**
 * The jobs view (`#/`): every job, live, filtered and arranged for triage (triage.ts): what needs
 * you first, or your own order (pinned first, then as you put them: drag, or Alt+↑/↓); dense (a
 * line a job) or roomy (a card, with its actions). Rows are selected for bulk actions (bulk.ts).
 * Pushes come one by one: the view is drawn at most once a frame, a push that moves no row on its
 * row alone (rows-patch.ts); only the rows on screen and a margin are in the DOM (rows-window.ts),
 * so a filter that takes out or brings back hundreds of rows moves a window's worth, and a push to
 * a row off screen draws nothing.
 */

import type { Row } from "./api.js";
import { BulkBar } from "./bulk.js";
import type { Ctx } from "./ctx.js";
import { h, reconcile } from "./dom.js";
import { type Prefs, prefs, setFolded, setPrefs } from "./prefs.js";
import { PreviewPane } from "./preview-pane.js";
import { RowView } from "./row.js";
import { RowDrag } from "./row-drag.js";
import { RowsDraw } from "./rows-draw.js";
import { emptyNote, noneMatchNote } from "./rows-empty.js";
import { type Laid, RowsHold } from "./rows-hold.js";
import { movedBy, siblingOf } from "./rows-order.js";
import { RowsPatch } from "./rows-patch.js";
import { reorder } from "./rows-reorder.js";
import { laidOut, RowsTidy } from "./rows-tidy.js";
import { profileChoices, RowsToolbar } from "./rows-toolbar.js";
import { RowsWindow } from "./rows-window.js";
import { Selection } from "./selection.js";
import { isFiltered, matcher } from "./triage.js";
import type { View } from "./view.js";

export function rowsView(ctx: Ctx): View {
  return new RowsView(ctx);
}

/** One RowView per job, kept in the order shown as rows come, go, change and move. */
class RowsView implements View {
  readonly el: HTMLElement;
  private readonly views = new Map<string, RowView>();
  private readonly list = h("ol", { class: "rows", "aria-label": "Jobs" });
  private readonly empty: HTMLElement;
  private readonly noneMatch: HTMLElement;
  private readonly preview: PreviewPane;
  private readonly tidy = new RowsTidy(() => this.render());
  private readonly toolbar: RowsToolbar;
  private readonly bar: BulkBar;
  private readonly selection: Selection;
  /** Which rows are in the DOM (rows-window.ts), and their elements for a draw (rows-draw.ts). */
  private readonly win = new RowsWindow(this.list, () => {
    const t0 = performance.now();
    const { drawn, pending } = this.draw();
    // A draw of the window alone (scrolled, the rows it could not make yet): its own user timing.
    performance.measure("roost:rows-window", {
      start: t0,
      detail: { rows: this.shown.length, drawn, pending },
    });
  });
  private readonly drawing: RowsDraw;
  private drag: RowDrag | null = null;
  /** The rows as last laid out, in order (not those folded away), and each one's place. */
  private shown: Row[] = [];
  private at = new Map<string, number>();
  /** The "N ended" line (rows-tidy.ts), after the rows, as last laid out. */
  private line: HTMLLIElement | null = null;
  /** Where each of them is in its tree, and the groups' headings, as last drawn. */
  private laid: Laid = { placed: [], groups: new Map() };
  /** Answered rows held in their place under the pointer (rows-hold.ts). */
  private readonly hold = new RowsHold(this.list, () => this.queue(true));
  private readonly patch = new RowsPatch();
  private layout: Pick<Prefs, "density" | "order">;
  /** The row focused last: the keyboard's, once the focus has left the rows. */
  private lastFocused: string | null = null;
  private queued = false;
  private disposed = false;
  private readonly offs: (() => void)[];

  constructor(private readonly ctx: Ctx) {
    const { density, order } = prefs();
    this.layout = { density, order };
    this.empty = emptyNote(ctx);
    this.selection = new Selection(() => this.render());
    this.toolbar = new RowsToolbar(ctx, {
      selectAll: (on) => {
        this.bar.forgetOutcome();
        this.selection.all(
          this.shown.map((r) => r.id),
          on,
        );
      },
      setLayout: (change) => this.setLayout(change),
      refresh: () => this.render(),
    });
    this.bar = new BulkBar(ctx, {
      selected: () => this.shown.filter((r) => this.selection.has(r.id)),
      clear: () => this.selection.all([], false),
    });
    this.noneMatch = noneMatchNote(() => this.toolbar.clearFilter());
    this.preview = new PreviewPane(ctx, this.list, (id) =>
      // Where it is, the list's scroll kept; scrolled to only when the window had left it out.
      this.focusRow(id, !this.views.get(id)?.el.isConnected),
    );
    this.drawing = new RowsDraw(this.win, {
      views: this.views,
      make: (row) => this.makeView(row),
      held: (id) => this.hold.isHeld(id),
      selected: (id) => this.selection.has(id),
    });
    this.el = h("section", { class: "view rows-view", "aria-labelledby": "rows-title" }, [
      h("h1", { id: "rows-title", class: "sr-only" }, "Jobs"),
      this.toolbar.el,
      this.list,
      this.noneMatch,
      this.empty,
      this.preview.el,
      ctx.readOnly() ? null : this.bar.el,
    ]);
    this.arrangeFor();
    this.render();
    this.offs = [
      ctx.live.onRow(({ before, after }) => this.patch.row(after.id, before)),
      ctx.live.subscribe((row) => this.queue(!row)),
      ctx.triage.subscribe(() => this.render()),
    ];
  }

  dispose(): void {
    this.disposed = true;
    for (const off of this.offs) off();
    this.preview.dispose();
    this.tidy.dispose();
    this.win.dispose();
  }

  /** Enter on a row: answered in the preview pane, where there is one (preview-pane.ts). */
  enter(): boolean {
    const cur = this.current();
    return !!cur && this.preview.answer(cur.row.id);
  }

  current(): RowView | null {
    const id = this.focusedId();
    if (id) return this.views.get(id) ?? null;
    const last = this.lastFocused ? this.views.get(this.lastFocused) : undefined;
    return last?.el.isConnected ? last : null;
  }

  /** ±1 row from the focused one (or the one focused last, even scrolled out of the window). */
  step(delta: number): void {
    const n = this.shown.length;
    if (!n) return;
    const id = this.focusedId() ?? this.lastFocused;
    const i = id ? (this.at.get(id) ?? -1) : -1;
    const next = i < 0 ? (delta > 0 ? 0 : n - 1) : Math.max(0, Math.min(n - 1, i + delta));
    this.focusRow(this.shown[next]!.id, true);
  }

  toggleSelected(): void {
    const cur = this.current();
    if (cur && !this.ctx.readOnly()) this.select(cur.row.id, false);
  }

  focusSearch(): void {
    this.toolbar.search.focus();
    this.toolbar.search.select();
  }

  fold(open: boolean): void {
    const cur = this.current();
    const at = cur && this.laid.placed.find((p) => p.row.id === cur.row.id);
    if (!at) return;
    if (at.children && at.folded === open) this.toggleFold(at.row.id);
    // Already folded, or nothing to fold: to its parent, as a tree view does.
    else if (!open && at.under) this.focusRow(at.under, true);
  }

  clearSelection(): boolean {
    if (!this.selection.size) return false;
    this.bar.forgetOutcome();
    this.selection.all([], false);
    return true;
  }

  /** Draws on the next frame (`whole`: not only rows' pushes changed): a burst of pushes is drawn once. */
  private queue(whole = false): void {
    if (whole) this.patch.all();
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(() => {
      this.queued = false;
      if (this.disposed) return;
      const { laid, shown, views } = this;
      const busy = this.hold.holding || this.selection.size > 0;
      const { order } = this.layout;
      const target = { laid, shown, views, busy, order, matches: matcher(this.ctx.triage.filter) };
      if (!this.patch.apply(this.ctx.live.rows, target)) this.render();
    });
  }

  private select(id: string, range: boolean): void {
    this.bar.forgetOutcome();
    this.selection.toggle(
      id,
      this.shown.map((r) => r.id),
      range,
    );
  }

  /** Folds a parent's children away, or shows them again; kept in this browser. */
  private toggleFold(id: string): void {
    setFolded(id, !prefs().folded.includes(id));
    this.render();
  }

  /** The density or the order changed: kept, and the rows made again for it. */
  private setLayout(change: Partial<Pick<Prefs, "density" | "order">>): void {
    const { density, order } = setPrefs(change);
    if (density === this.layout.density && order === this.layout.order) return;
    this.layout = { density, order };
    for (const v of this.views.values()) v.el.remove();
    this.views.clear();
    this.win.reset();
    this.arrangeFor();
    this.render();
  }

  /** The view's class and its dragging, for the layout. */
  private arrangeFor(): void {
    const { density, order } = this.layout;
    this.el.classList.toggle("dense", density === "dense");
    this.list.classList.toggle("by-state", order !== "mine");
    // Dragging is for your own order, on the cards (a line is too thin a target).
    this.drag =
      order === "mine" && density === "roomy" && !this.ctx.readOnly()
        ? new RowDrag(this.list, {
            drop: (moved, over, after) => {
              const beside = siblingOf(this.laid.placed, moved, over);
              if (beside) this.placeBeside(moved, beside, after);
            },
          })
        : null;
  }

  /** The rows as they are now: filtered, arranged, their views made or updated, put in order. */
  private render(): void {
    const t0 = performance.now();
    const all = this.ctx.live.sorted();
    const filter = this.ctx.triage.filter;
    const matched = all.filter(matcher(filter));
    const { kept, line } = this.tidy.fold(matched, filter); // ended rows folded away (rows-tidy.ts)
    const laid = this.hold.arrange(
      laidOut(kept, this.ctx.live.rows, this.layout.order, new Set(prefs().folded)),
    );
    const { placed } = laid;
    this.laid = laid;
    this.patch.drawn(laid);
    const shown = placed.map((p) => p.row);
    this.shown = shown;
    this.at = new Map(shown.map((r, i) => [r.id, i]));
    this.line = line;
    // A toggle's room before each name, while some row has one.
    this.list.classList.toggle(
      "trees",
      placed.some((p) => p.children > 0),
    );
    this.selection.keepOnly(new Set(this.at.keys()));
    this.list.hidden = shown.length === 0;
    const { drawn, pending } = this.draw();
    this.dropGone(all);
    let selected = 0;
    for (const row of shown) if (this.selection.has(row.id)) selected++;
    this.toolbar.update({
      total: all.length,
      matched: matched.length,
      shown: shown.length,
      selected,
      profiles: profileChoices(all, this.ctx.profiles),
      remotes: [...this.ctx.live.remotes.values()],
    });
    this.toolbar.el.hidden = all.length === 0 && !isFiltered(filter);
    this.empty.hidden = all.length > 0;
    this.noneMatch.hidden = all.length === 0 || shown.length > 0;
    this.bar.render();
    // How long a draw takes, for the browser's performance panel and the tests (user timing).
    performance.measure("roost:rows", { start: t0, detail: { rows: shown.length, drawn, pending } });
  }

  /**
   * The window's part of the rows as last laid out, in the list (rows-draw.ts), the focused row and
   * the one dragged among them wherever they are: the focus stays, a drag goes on. How many rows,
   * and whether some in the window are still to make (on the next frame). `also`: a row to draw
   * wherever it is too (one about to be focused).
   */
  private draw(also: string | null = null): { drawn: number; pending: boolean } {
    if (this.disposed) return { drawn: 0, pending: false };
    const active = document.activeElement as HTMLElement | null;
    const keep = [this.focusedId(), this.drag?.dragged ?? null, also].map(
      (id) => (id ? this.at.get(id) : -1) ?? -1,
    );
    const { want, drawn, pending } = this.drawing.elements(this.laid, keep);
    reconcile(this.list, this.line ? [...want, this.line] : want);
    if (pending) this.win.again(); // the rows not made yet: on the next frame
    // Moving an element takes the focus from it: it goes back where it was.
    if (active && active !== document.activeElement && this.el.contains(active))
      active.focus({ preventScroll: true });
    return { drawn, pending };
  }

  /** The row the focus is in, if any. */
  private focusedId(): string | null {
    const active = document.activeElement;
    if (!active || !this.list.contains(active)) return null;
    return active.closest<HTMLElement>("li.row[data-id]")?.dataset.id ?? null;
  }

  /**
   * Focuses a row shown, drawn first where it is out of the window: with `scroll`, the window
   * moved around it, then scrolled to; without, drawn alone where it is, the rows on screen kept.
   */
  private focusRow(id: string, scroll: boolean): void {
    const i = this.at.get(id);
    if (i === undefined) return;
    if (!this.views.get(id)?.el.isConnected) {
      if (scroll) this.win.reveal(i);
      this.draw(id);
    }
    const v = this.views.get(id);
    v?.el.focus({ preventScroll: true });
    if (scroll) v?.el.scrollIntoView({ block: "nearest" });
  }

  /** A new row's view, with its grip and its focus remembered. */
  private makeView(row: Row): RowView {
    const v = new RowView(row, this.ctx, {
      dense: this.layout.density === "dense",
      move: this.layout.order === "mine" ? (id, delta) => this.move(id, delta) : undefined,
      select: (id, range) => this.select(id, range),
      fold: (id) => this.toggleFold(id),
      answering: (id, on) => this.answering(id, on),
    });
    this.views.set(row.id, v);
    this.drag?.wire(v);
    v.el.addEventListener("focusin", () => {
      this.lastFocused = row.id;
    });
    return v;
  }

  /**
   * A row is being answered here (`on`), or its answer did not go: it holds its place, drawn as
   * answered, and the keyboard goes on to the next row that needs you (rows-hold.ts).
   */
  private answering(id: string, on: boolean): void {
    const v = this.views.get(id);
    if (!on || !v) {
      this.hold.letGo(id);
      return;
    }
    const focused = v.el.contains(document.activeElement); // before the redraw disables the choice
    this.hold.answering(id, this.laid);
    v.setAnswered(true);
    if (!focused) return;
    const next = this.hold.nextNeeding(this.shown, id);
    if (next) this.focusRow(next, false);
  }

  /** Forgets the views of jobs that are gone (removed). */
  private dropGone(all: Row[]): void {
    if (all.length === this.views.size) return;
    const ids = new Set(all.map((r) => r.id));
    for (const [id, v] of this.views)
      if (!ids.has(id)) {
        v.el.remove();
        this.views.delete(id);
      }
  }

  /** Moves a row by `delta` places among its siblings shown (its buttons, Alt+↑/↓), in your order. */
  private move(id: string, delta: number): void {
    const to = movedBy(this.laid.placed, id, delta);
    if (to) this.placeBeside(id, to.beside, to.after);
  }

  /** Puts `id` just before (or after) `beside` in the order of every job: `reorder` takes them all. */
  private placeBeside(id: string, beside: string, after: boolean): void {
    void reorder(this.ctx, id, beside, after, {
      render: () => this.render(),
      view: (v) => this.views.get(v),
    });
  }
}
