/**
 * Your own order of the jobs (the jobs view's buttons, Alt+↑/↓, a drag): where a row moved to
 * lands among its siblings in the trees shown, and the order of every job that `reorder` takes.
 * Pure: the view (rows.ts) draws and sends it.
 */
import type { Placed } from "../../sdk/ts/protocol/tree.js";

/**
 * Where a row moved by `delta` places among its siblings shown lands: beside which sibling, and
 * after it or before. A root moves past the next root and its whole tree, a child among its
 * parent's children. Null when it does not move (at an end already, or not shown).
 */
export function movedBy(
  placed: Placed[],
  id: string,
  delta: number,
): { beside: string; after: boolean } | null {
  const at = placed.find((p) => p.row.id === id);
  if (!at) return null;
  const siblings = placed.filter((p) => p.under === at.under).map((p) => p.row.id);
  const from = siblings.indexOf(id);
  const to = Math.max(0, Math.min(siblings.length - 1, from + delta));
  return from === to ? null : { beside: siblings[to]!, after: delta > 0 };
}

/** The row `over` stands for as a place to drop `moved`: itself or its ancestor among `moved`'s siblings. */
export function siblingOf(placed: Placed[], moved: string, over: string): string | null {
  const under = placed.find((p) => p.row.id === moved)?.under ?? null;
  for (let at = placed.find((p) => p.row.id === over); at; ) {
    if (at.under === under) return at.row.id;
    const parent = at.under;
    at = parent === null ? undefined : placed.find((p) => p.row.id === parent);
  }
  return null;
}

/** Every job's id in order (`ids`), with `id` put just before (or after) `beside`. */
export function orderWith(ids: string[], id: string, beside: string, after: boolean): string[] {
  const rest = ids.filter((x) => x !== id);
  rest.splice(rest.indexOf(beside) + (after ? 1 : 0), 0, id);
  return rest;
}
