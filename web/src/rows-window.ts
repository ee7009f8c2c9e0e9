/**
 * The jobs view's window (rows.ts): only the rows on screen and a screenful above and below are in
 * the DOM; a spacer holds the place of the rows above them, another of those below, so that the
 * scrollbar and the scroll position are those of the whole list. A keystroke that filters hundreds
 * of rows out (or back in) then takes out or puts in a window's worth of rows, not hundreds and
 * their style and layout; a push to a row off screen draws nothing.
 *
 * Rows vary in height (a line or a card, a question, a tree's notes, a group's heading above): each
 * drawn row is measured as the browser lays it out (a ResizeObserver, which costs no layout of its
 * own) and its height kept by its id; a row never drawn counts as tall as the average of those
 * measured (before any, the density's line). The window follows the scroll and the screen's size,
 * at most once a frame, and is drawn again only once the screen nears its edge (half a screenful
 * from it), not on every scrolled pixel.
 */

/** A row as the window sees it: its id, and its group heading's key when one goes just before it. */
export interface Slot {
  id: string;
  head: string | null;
}

/**
 * What to draw: the slots [start, end) of `main` (the screen's and a screenful either side), of
 * which `visible` are on screen; and `extra`, slots drawn alone wherever they are.
 */
export interface Plan {
  main: [number, number];
  visible: [number, number];
  extra: number[];
}

/** A row's height before any is measured: the dense line (list.css, `contain-intrinsic-size`). */
const LINE_PX = 31;
/** A group heading's, before one is measured. */
const HEAD_PX = 24;

export class RowsWindow {
  /** Each row's height as last measured (by id); a heading's by `head:` and its key. */
  private readonly heights = new Map<string, number>();
  /** How many rows are measured, and their heights' sum: a row never drawn counts as their average. */
  private measured = { rows: 0, total: 0 };
  /** The list's gap between items (roomy cards have one), read when the browser measures. */
  private gap = Number.NaN;
  /** Each slot's top in the list (`tops[i]`, the gap after each included), for the plan made last. */
  private tops = new Float64Array(1);
  private readonly observer: ResizeObserver;
  private readonly keys = new WeakMap<Element, string>();
  private observed = new Set<Element>();
  /** The main run's first and last elements as drawn, and whether it reached either end. */
  private edges: { first: Element | null; last: Element | null; top: boolean; bottom: boolean } | null = null;
  /** Drawn around this slot next, whatever the scroll (a row the keyboard goes to). */
  private around: number | null = null;
  private frame = 0;
  /** The next frame's draw is wanted whatever the window covers (rows still to make). */
  private forced = false;
  /** `again`'s wait for the frame that shows the draw before. */
  private later = 0;

  /** `redraw`: draw the list's elements again (its rows as laid out, this window's part of them). */
  constructor(
    private readonly list: HTMLElement,
    private readonly redraw: () => void,
  ) {
    this.observer = new ResizeObserver((entries) => this.measure(entries));
    window.addEventListener("scroll", this.check, { passive: true });
    window.addEventListener("resize", this.check, { passive: true });
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    cancelAnimationFrame(this.later);
    this.observer.disconnect();
    window.removeEventListener("scroll", this.check);
    window.removeEventListener("resize", this.check);
  }

  /** The layout changed (another density): the heights measured no longer hold. */
  reset(): void {
    this.heights.clear();
    this.measured = { rows: 0, total: 0 };
    this.gap = Number.NaN;
  }

  /** The next draw is around slot `i`, wherever the page is scrolled (the caller then scrolls to it). */
  reveal(i: number): void {
    this.around = i;
  }

  /**
   * A draw for the rows the last one could not make yet, off screen: on the frame after the one
   * that shows it, which then is not made heavier for rows no one sees (a keystroke's frame).
   */
  again(): void {
    if (this.later) return;
    this.later = requestAnimationFrame(() => {
      this.later = 0;
      this.forced = true;
      this.schedule();
    });
  }

  /**
   * The slots to draw: those on screen and a screenful either side (or around the slot revealed),
   * and each of `keep` (the focused row, the one dragged) wherever it is, as a run of its own.
   */
  plan(slots: Slot[], keep: number[]): Plan {
    const n = slots.length;
    const tops = this.layOut(slots);
    const screen = window.innerHeight;
    const total = Math.max(0, tops[n]! - this.gapPx());
    let from: number;
    if (this.around !== null && this.around < n) from = tops[this.around]! - screen / 2;
    else from = -this.list.getBoundingClientRect().top;
    this.around = null;
    // Scrolled past the end of a list grown shorter (a filter): its last screenful, where the page will be.
    from = Math.max(0, Math.min(from, total - screen));
    const to = from + screen;
    const visible: [number, number] = [this.first(from, n), this.first(to, n, true)];
    const main: [number, number] = [this.first(from - screen, n), this.first(to + screen, n, true)];
    const extra = [...new Set(keep)].filter((i) => i >= 0 && i < n && (i < main[0] || i >= main[1]));
    return { main, visible, extra };
  }

  /** How tall a spacer standing for slots [a, b) is, in the plan made last (the list's gaps around it). */
  spacerPx(a: number, b: number): number {
    return Math.max(0, this.tops[b]! - this.tops[a]! - this.gapPx());
  }

  /**
   * What was drawn: each element with its key (a row's id, a heading's `head:` key), measured from
   * now on; the main run's first and last, and whether it reached the list's top and bottom.
   */
  drawn(els: [Element, string][], edges: NonNullable<RowsWindow["edges"]>): void {
    const now = new Set<Element>();
    for (const [el, key] of els) {
      now.add(el);
      this.keys.set(el, key);
      if (!this.observed.has(el)) this.observer.observe(el);
    }
    for (const el of this.observed) if (!now.has(el)) this.observer.unobserve(el);
    this.observed = now;
    this.edges = edges;
  }

  /** Each slot's top, from the heights measured (or estimated): the list's layout, spacers and all. */
  private layOut(slots: Slot[]): Float64Array {
    const gap = this.gapPx();
    const row = this.measured.rows ? this.measured.total / this.measured.rows : LINE_PX;
    const tops = new Float64Array(slots.length + 1);
    let y = 0;
    slots.forEach((s, i) => {
      tops[i] = y;
      y += (this.heights.get(s.id) ?? row) + gap;
      if (s.head) y += (this.heights.get(`head:${s.head}`) ?? HEAD_PX) + gap;
    });
    tops[slots.length] = y;
    this.tops = tops;
    return tops;
  }

  /** The first slot whose bottom is below `y` (`top`: whose top is at or below it), or `n`. */
  private first(y: number, n: number, top = false): number {
    const tops = this.tops;
    const gap = this.gapPx();
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const past = top ? tops[mid]! >= y : tops[mid + 1]! - gap > y;
      if (past) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private gapPx(): number {
    if (Number.isNaN(this.gap)) this.gap = Number.parseFloat(getComputedStyle(this.list).rowGap) || 0;
    return this.gap;
  }

  /** The browser laid the drawn rows out: their heights kept; the window looked at again. */
  private measure(entries: ResizeObserverEntry[]): void {
    for (const e of entries) {
      const key = this.keys.get(e.target);
      const px = e.borderBoxSize[0]?.blockSize ?? e.contentRect.height;
      // Not laid out (the list hidden, the view not on the page yet): nothing to learn.
      if (!key || !px || !e.target.isConnected) continue;
      const had = this.heights.get(key);
      if (had === px) continue;
      this.heights.set(key, px);
      if (key.startsWith("head:")) continue;
      this.measured.rows += had === undefined ? 1 : 0;
      this.measured.total += px - (had ?? 0);
    }
    this.gap = Number.NaN;
    this.schedule();
  }

  /** On a scroll or a resize: looked at on the next frame, once however many came. */
  private readonly check = (): void => this.schedule();

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const forced = this.forced;
      this.forced = false;
      if (forced || !this.covers()) this.redraw();
    });
  }

  /**
   * Whether the rows drawn still reach half a screenful beyond the screen's top and bottom (or the
   * list's ends): the drawn elements' own places, as the browser laid them out.
   */
  private covers(): boolean {
    const e = this.edges;
    if (!e || !this.list.isConnected || this.list.hidden) return true;
    const margin = window.innerHeight / 2;
    const top = e.top || (!!e.first?.isConnected && e.first.getBoundingClientRect().top <= -margin);
    const bottom =
      e.bottom ||
      (!!e.last?.isConnected && e.last.getBoundingClientRect().bottom >= window.innerHeight + margin);
    return top && bottom;
  }
}
