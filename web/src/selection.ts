/**
 * The rows selected for a bulk action: by checkbox, a click on a dense row, `x`; shift-click
 * selects (or clears) the range from the row clicked last. Only rows the view shows stay selected,
 * so an action never reaches a row the filter hides.
 */
export class Selection {
  readonly ids = new Set<string>();
  /** The row clicked last: a shift-click's range starts there. */
  private anchor: string | null = null;

  constructor(private readonly changed: () => void) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  get size(): number {
    return this.ids.size;
  }

  /**
   * Selects or clears `id` (`on`, or the opposite of what it is); with `range`, every row from
   * the anchor to it, in `order` (the rows as shown), the same way.
   */
  toggle(id: string, order: string[], range = false, on = !this.ids.has(id)): void {
    const from = range && this.anchor ? order.indexOf(this.anchor) : -1;
    const to = order.indexOf(id);
    if (from >= 0 && to >= 0) {
      const [a, b] = from < to ? [from, to] : [to, from];
      for (const each of order.slice(a, b + 1)) this.set(each, on);
    } else this.set(id, on);
    this.anchor = id;
    this.changed();
  }

  /** Every row in `ids` selected (`on`), or none. */
  all(ids: string[], on: boolean): void {
    if (on) for (const id of ids) this.ids.add(id);
    else this.ids.clear();
    this.changed();
  }

  /** Keeps only the rows shown; true when some were dropped. */
  keepOnly(shown: Set<string>): boolean {
    let dropped = false;
    for (const id of this.ids)
      if (!shown.has(id)) {
        this.ids.delete(id);
        dropped = true;
      }
    if (this.anchor && !shown.has(this.anchor)) this.anchor = null;
    return dropped;
  }

  private set(id: string, on: boolean): void {
    if (on) this.ids.add(id);
    else this.ids.delete(id);
  }
}
