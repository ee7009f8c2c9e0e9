/**
 * The jobs list's elements for a draw (rows.ts): the window's part of the rows laid out
 * (rows-window.ts), each row's element under its group's heading when it begins one, spacers for
 * the rows not drawn. Each row drawn says its place in the whole list (`aria-posinset` of
 * `aria-setsize`), for a screen reader that sees only the window.
 */
import type { Group, Placed } from "../../sdk/ts/protocol/tree.js";
import type { Row } from "./api.js";
import { h } from "./dom.js";
import type { RowView } from "./row.js";
import type { Laid } from "./rows-hold.js";
import type { RowsWindow, Slot } from "./rows-window.js";

/**
 * How many rows one draw puts in the list beyond those on screen (which it puts all, the screen
 * filled at once): those below it, then those above, made or not before, a few milliseconds' worth
 * of style and layout; the rest on the next frames. A keystroke whose filter changes every row on
 * screen then lays out a screenful of rows in its frame, not three.
 */
const MORE_ROWS_PER_DRAW = 12;

/** What a draw asks of the view. */
export interface DrawHost {
  views: ReadonlyMap<string, RowView>;
  /** A new row's view (kept in `views`). */
  make(row: Row): RowView;
  held(id: string): boolean;
  selected(id: string): boolean;
}

export class RowsDraw {
  /** The group headings, made once each. */
  private readonly heads = new Map<string, HTMLLIElement>();
  private readonly spacers: HTMLLIElement[] = [];
  private slots: Slot[] = [];
  private slotsOf: Laid | null = null;

  constructor(
    private readonly win: RowsWindow,
    private readonly host: DrawHost,
  ) {}

  /**
   * The elements for the layout `laid` (`keep`: rows drawn wherever they are, by their place):
   * how many rows they hold, and whether some in the window are not made yet (`pending`).
   */
  elements(laid: Laid, keep: number[]): { want: Element[]; drawn: number; pending: boolean } {
    const { placed, groups } = laid;
    const slots = this.slotsFor(laid);
    const { main, visible, extra } = this.win.plan(slots, keep);
    const made = this.make(placed, visible);
    // The main run: the screen's rows, then those below and above it, while views are made.
    let [a, b] = visible;
    for (let i = a; i < b; i++) made(i);
    while (b < main[1] && made(b)) b++;
    while (a > main[0] && made(a - 1)) a--;
    const pending = a > main[0] || b < main[1];
    // The rows kept wherever they are (focused, dragged, about to be focused): drawn, whatever the budget.
    for (const i of extra) if (!this.host.views.has(placed[i]!.row.id)) this.host.make(placed[i]!.row);
    const runs: [number, number][] = [[a, b], ...extra.map((i): [number, number] => [i, i + 1])];
    runs.sort((x, y) => x[0] - y[0]);
    const drawn = runs.filter(([x, y]) => y > x);

    const want: Element[] = [];
    const measured: [Element, string][] = [];
    let spacer = 0;
    let prev = 0;
    let rows = 0;
    let first: Element | null = null;
    let last: Element | null = null;
    for (const [start, end] of drawn) {
      if (start > prev) want.push(this.spacer(spacer++, this.win.spacerPx(prev, start)));
      for (let i = start; i < end; i++) {
        const p = placed[i]!;
        const group = groups.get(p.row.id);
        if (group) {
          const head = this.groupHead(group);
          want.push(head);
          measured.push([head, `head:${group.state}`]);
        }
        const v = this.host.views.get(p.row.id)!;
        v.update(p.row);
        v.setAnswered(this.host.held(p.row.id));
        v.setSelected(this.host.selected(p.row.id));
        v.setTree(p);
        setAttr(v.el, "aria-posinset", String(i + 1));
        setAttr(v.el, "aria-setsize", String(placed.length));
        want.push(v.el);
        measured.push([v.el, p.row.id]);
        rows++;
        if (start === a && i === start) first = v.el;
        if (start === a && i === end - 1) last = v.el;
      }
      prev = end;
    }
    if (prev < placed.length) want.push(this.spacer(spacer, this.win.spacerPx(prev, placed.length)));
    this.win.drawn(measured, { first, last, top: a === 0, bottom: b >= placed.length });
    return { want, drawn: rows, pending };
  }

  /** The slots of a layout: the same as long as the layout is (a push patches its rows, not their order). */
  private slotsFor(laid: Laid): Slot[] {
    if (laid !== this.slotsOf) {
      this.slotsOf = laid;
      this.slots = laid.placed.map((p) => ({ id: p.row.id, head: laid.groups.get(p.row.id)?.state ?? null }));
    }
    return this.slots;
  }

  /**
   * Whether row `i` is drawn now: on screen (`visible`), in the list already, or put in while the
   * budget lasts; its view made if it has none.
   */
  private make(placed: Placed[], [from, to]: [number, number]): (i: number) => boolean {
    let budget = MORE_ROWS_PER_DRAW;
    return (i) => {
      const row = placed[i]?.row;
      if (!row) return false;
      const had = this.host.views.get(row.id);
      if (had?.el.isConnected) return true;
      if (i < from || i >= to) {
        if (budget <= 0) return false;
        budget--;
      }
      if (had) return true;
      this.host.make(row);
      return true;
    };
  }

  /** The n-th spacer of a draw: the height of the rows it stands for. */
  private spacer(n: number, px: number): HTMLLIElement {
    let el = this.spacers[n];
    if (!el) {
      el = h("li", { class: "spacer", "aria-hidden": "true" });
      this.spacers[n] = el;
    }
    const height = `${px}px`;
    if (el.style.height !== height) el.style.height = height;
    return el;
  }

  /**
   * A state's heading: its word and how many rows in its group are in that state (each row says
   * its state too; a tree in the group may hold others: it is there for its most urgent).
   */
  private groupHead({ state, count }: Group): HTMLLIElement {
    let head = this.heads.get(state);
    if (!head) {
      head = h("li", { class: "group", "aria-hidden": "true" });
      this.heads.set(state, head);
    }
    const text = `${state} · ${count}`;
    if (head.textContent !== text) head.textContent = text;
    return head;
  }
}

function setAttr(el: Element, name: string, value: string): void {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}
