/** Small DOM helpers: `h` builds an element, `clear` empties one, `reconcile` orders one's children. No framework. */

export type Child = Node | string | number | null | undefined | false;
type Handler = (ev: Event) => void;
export type Props = Record<string, string | number | boolean | null | undefined | Handler>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === null || value === undefined || value === false) continue;
      if (typeof value === "function") el.addEventListener(key.slice(2).toLowerCase(), value);
      else if (key === "class") el.className = String(value);
      else if (key === "value" && "value" in el) (el as HTMLInputElement).value = String(value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "number" ? String(child) : child);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.firstChild.remove();
}

/**
 * Replaces an element's children (reconcile: those in both stay where they are, untouched), keeping
 * the focus on the element with the same data-focus key when the one that had it is gone.
 */
export function replaceKeepingFocus(el: Element, children: (Child | Child[])[]): void {
  const active = document.activeElement;
  const key = active && el.contains(active) ? active.getAttribute("data-focus") : null;
  const nodes: Node[] = [];
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    nodes.push(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  reconcile(el, nodes);
  if (key && !active?.isConnected) {
    const again = el.querySelector<HTMLElement>(`[data-focus="${CSS.escape(key)}"]`);
    again?.focus({ preventScroll: true });
  }
}

/**
 * What a part last drew, by a key of what it shows: drawn again only when that changed. A row is
 * pushed several times a second while it works, and a button made anew under the pointer loses the
 * click pressed on the old one (its press and its release on two elements).
 */
export class Shown {
  private drawn: string | null = null;

  /** Whether `what` differs from what was drawn last (taken as drawn now). */
  changed(what: unknown): boolean {
    const key = JSON.stringify(what);
    if (key === this.drawn) return false;
    this.drawn = key;
    return true;
  }

  forget(): void {
    this.drawn = null;
  }
}

/** Focuses the element under `root` with that data-focus key (after a redraw moved things). */
export function focusKey(root: ParentNode, key: string): void {
  root.querySelector<HTMLElement>(`[data-focus="${CSS.escape(key)}"]`)?.focus();
}

/** Esc in a form's field closes the form. */
export function closeOnEscape(field: HTMLElement, close: () => void): void {
  field.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      close();
    }
  });
}

/** Is the user typing (a key should go to the field, not to a shortcut)? */
export function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target.closest(".xterm")) return true;
  const tag = target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

/** "1 job", "3 jobs": a count with its noun, plural but for one. */
export const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** "just now", "42 s ago", "3 m ago", "2 h ago", "5 d ago". */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** One formatter for every time's tooltip: `toLocaleString` makes one per call, slow for 500 rows. */
const LOCAL_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** A <time> that the page's ticker keeps current ("3 m ago"). */
export function timeAgo(iso: string | null | undefined, prefix = ""): HTMLTimeElement | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  const title = Number.isNaN(t) ? iso : LOCAL_TIME.format(t);
  const el = h("time", { datetime: iso, "data-ago": prefix, title });
  el.textContent = prefix + ago(iso);
  return el;
}

export function tickTimes(root: ParentNode = document): void {
  const now = Date.now();
  for (const el of root.querySelectorAll<HTMLTimeElement>("time[data-ago]")) {
    const text = (el.dataset.ago ?? "") + ago(el.dateTime, now);
    if (el.textContent !== text) el.textContent = text;
  }
}

/**
 * A part's elements by name (a row's fold toggle, its name's link, its choices), each made anew
 * only when what it shows changed (as Shown compares): a push that changes the rest leaves them
 * the same elements, so that a press and release across it is still a click.
 */
export class KeptParts {
  private readonly parts = new Map<string, { shown: Shown; made: unknown }>();

  get<T>(name: string, shows: unknown, make: () => T): T {
    const part = this.parts.get(name) ?? { shown: new Shown(), made: null };
    this.parts.set(name, part);
    if (part.shown.changed(shows)) part.made = make();
    return part.made as T;
  }
}

/**
 * A list's items, each element made anew only when what it shows changed (as Shown compares): a
 * push for one item leaves the others' elements as they are, with the buttons under the pointer,
 * a confirmation half asked and a status line said. The focus, on an element made anew, goes to
 * the one with the same data-focus key in the same item.
 */
export class KeptItems<T> {
  private readonly kept = new Map<string, { shown: Shown; el: HTMLElement | null }>();

  constructor(
    private readonly list: HTMLElement,
    /** An item's identity: its element is kept across draws while what it shows is the same. */
    private readonly id: (item: T) => string,
    private readonly make: (item: T) => HTMLElement,
  ) {}

  /** Puts `items` in the list, in order; `shows`: what an item's element shows, the item by default. */
  draw(items: readonly T[], shows: (item: T) => unknown = (item) => item): void {
    const active = document.activeElement as HTMLElement | null;
    const inList = active && this.list.contains(active) ? active : null;
    const focusKey = inList?.dataset.focus;
    const focusItem = inList && [...this.kept].find(([, d]) => d.el?.contains(inList))?.[0];
    const ids = new Set(items.map(this.id));
    for (const id of this.kept.keys()) if (!ids.has(id)) this.kept.delete(id);
    const els = items.map((item) => {
      const id = this.id(item);
      const d = this.kept.get(id) ?? { shown: new Shown(), el: null };
      this.kept.set(id, d);
      if (d.shown.changed(shows(item)) || !d.el) d.el = this.make(item);
      return d.el;
    });
    reconcile(this.list, els);
    if (inList && !inList.isConnected && focusKey && focusItem)
      this.kept
        .get(focusItem)
        ?.el?.querySelector<HTMLElement>(`[data-focus="${CSS.escape(focusKey)}"]`)
        ?.focus({ preventScroll: true });
  }
}

/**
 * Puts `want` in `parent`, in order, and takes out whatever else is there. What goes is taken out
 * first; of what stays, the most that are already in order (a longest increasing run of their
 * places) are not touched, and only the others move (a row moved down past ten others is the one
 * element moved, not the ten: a moved element is drawn afresh, and loses a press or the focus on
 * it); what comes or moves goes in a run at a time (900 rows coming back when a filter is cleared
 * are one insertion, not 900).
 */
export function reconcile(parent: Element, want: Node[]): void {
  const keep = new Set(want);
  const place = new Map<Node, number>();
  for (let node = parent.firstChild; node; ) {
    const next: ChildNode | null = node.nextSibling;
    if (keep.has(node)) place.set(node, place.size);
    else node.remove();
    node = next;
  }
  const stay = inOrder(want.map((n) => place.get(n) ?? -1));
  // From the end: each run of those that do not stay goes before the next one wanted.
  let before: Node | null = null;
  for (let i = want.length - 1; i >= 0; ) {
    if (stay.has(i)) {
      before = want[i--]!;
      continue;
    }
    let first = i;
    while (first > 0 && !stay.has(first - 1)) first--;
    const run = document.createDocumentFragment();
    run.append(...want.slice(first, i + 1));
    parent.insertBefore(run, before);
    before = want[first]!;
    i = first - 1;
  }
}

/**
 * The indices of a longest strictly increasing run of `places` (-1: not placed yet, never in it):
 * the elements that can stay where they are. O(n log n).
 */
function inOrder(places: number[]): Set<number> {
  const ends: number[] = []; // ends[k]: the index ending the best run of length k + 1 found so far
  const prev = new Array<number>(places.length).fill(-1);
  for (let i = 0; i < places.length; i++) {
    const p = places[i]!;
    if (p < 0) continue;
    let lo = 0;
    let hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (places[ends[mid]!]! < p) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = ends[lo - 1]!;
    ends[lo] = i;
  }
  const stay = new Set<number>();
  for (let i = ends.length > 0 ? ends[ends.length - 1]! : -1; i >= 0; i = prev[i]!) stay.add(i);
  return stay;
}
