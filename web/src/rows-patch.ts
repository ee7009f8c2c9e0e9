/**
 * A push drawn on its own row (rows.ts): most pushes change a row's text, not its place (a working
 * agent's summary, its tool, its context). Such a push redraws that row's element alone; the
 * whole list (filtered, laid out, ordered, counted) is drawn again only when some push since the
 * last draw may move a row, show or hide one, or change what the toolbar and the headings count.
 */
import type { Row } from "./api.js";
import type { Prefs } from "./prefs.js";
import type { RowView } from "./row.js";
import { viewState } from "./row-words.js";
import type { Laid } from "./rows-hold.js";
import { repoOf } from "./rows-tidy.js";

/**
 * Whether a row's change leaves it where it was: the same state (its group, its rank, its tree's),
 * pin, order, parent, profile, daemon, repository, end, whether the filter takes it, and for the
 * orders by CPU or memory, the same resources.
 */
export function keepsItsPlace(
  before: Row,
  after: Row,
  matches: (row: Row) => boolean,
  order: Prefs["order"],
): boolean {
  return (
    viewState(before) === viewState(after) &&
    before.pinned === after.pinned &&
    before.order === after.order &&
    before.parent === after.parent &&
    before.profile === after.profile &&
    before.daemon === after.daemon &&
    before.reachable === after.reachable &&
    before.endedAt === after.endedAt &&
    repoOf(before) === repoOf(after) &&
    matches(before) === matches(after) &&
    (order !== "cpu" && order !== "mem"
      ? true
      : JSON.stringify(before.resources) === JSON.stringify(after.resources))
  );
}

/** What the list draws from, as rows.ts keeps it. */
export interface PatchTarget {
  laid: Laid;
  shown: Row[];
  views: ReadonlyMap<string, RowView>;
  matches: (row: Row) => boolean;
  order: Prefs["order"];
  /** Rows held in place or selected: the whole list is drawn (rows-hold.ts, the bulk bar). */
  busy: boolean;
}

export class RowsPatch {
  /** Each row pushed since the last draw, as it was then (its first push's `before`). */
  private readonly pushed = new Map<string, Row>();
  private whole = true;
  /** Each row's place in the layout last drawn. */
  private at = new Map<string, number>();

  /** A row's push (`before`: the row until then; none, a new row). */
  row(id: string, before: Row | undefined): void {
    if (!before) this.whole = true;
    else if (!this.pushed.has(id)) this.pushed.set(id, before);
  }

  /** Anything else than a row's push: the whole list is drawn next. */
  all(): void {
    this.whole = true;
  }

  /** The whole list was drawn, laid out so. */
  drawn(laid: Laid): void {
    this.whole = false;
    this.pushed.clear();
    this.at = new Map(laid.placed.map((p, i) => [p.row.id, i]));
  }

  /**
   * Draws each row pushed since the last draw in its own element, when none of them moves (`rows`:
   * every row now); false, having drawn nothing, when the whole list must be drawn instead. A row
   * out of the window (rows-window.ts) is not drawn: its view is brought up to date when it is.
   */
  apply(rows: ReadonlyMap<string, Row>, t: PatchTarget): boolean {
    if (this.whole || t.busy) return false;
    const changes: { row: Row; at: number }[] = [];
    for (const [id, before] of this.pushed) {
      const row = rows.get(id);
      if (!row || !keepsItsPlace(before, row, t.matches, t.order)) return false;
      const at = this.at.get(id);
      // Not laid out (filtered out, folded away) and staying so: drawn with the list, when it is.
      if (at === undefined) continue;
      if (t.laid.placed[at]?.row.id !== id) return false;
      changes.push({ row, at });
    }
    for (const { row, at } of changes) {
      const place = t.laid.placed[at]!;
      t.laid.placed[at] = { ...place, row };
      t.shown[at] = row;
      const view = t.views.get(row.id);
      if (view?.el.isConnected) view.update(row);
    }
    this.pushed.clear();
    return true;
  }
}
