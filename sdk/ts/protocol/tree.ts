/**
 * The jobs as trees, for every face (the hub draws them, `roost ls` indents them): a job a
 * session spawned (its row's `parent`) is drawn under its parent, indented, and a parent can be
 * folded to hide what is under it. Pure: rows in, places out.
 *
 * Where a tree goes, "needs you first": by its most urgent job, so a blocked child is never found
 * low in the list under a parent that works: its whole tree goes up to the blocked group, and
 * its parent says "1 needs you" (folded or not). Children are sorted the same way within their
 * parent; in your order they keep yours. A child whose parent the filter hides is drawn as a root,
 * saying whose child it is: so the "need you" filter shows a blocked child even when its parent
 * works. docs/hub.md says the same.
 */
import { needsYou, triageRank, VIEW_STATES, type ViewState, viewState } from "./row-state.js";
import type { Row } from "./schema.js";

/** A row where it is drawn, and what its tree says of what is under it. */
export interface Placed {
  row: Row;
  /** 0 for a root, 1 for its child… */
  depth: number;
  /** The row it is drawn under (null: a root). */
  under: string | null;
  /** Its children the filter shows, folded or not. */
  children: number;
  /** The rows under it the filter shows, at any depth (what folding it hides). */
  descendants: number;
  /** The rows under it, at any depth, that need you (blocked or failed), folded or not. */
  needing: number;
  /** Folded: it has children, and they are hidden. */
  folded: boolean;
  /** Its parent when the filter hides it (so this child is drawn as a root), else null. */
  apartFrom: Row | null;
}

/** A state's group (needs you first): its heading's state, and how many of its rows are in it. */
export interface Group {
  state: ViewState;
  count: number;
}

export interface Layout {
  /** The rows drawn, in order (a folded parent's children are not). */
  placed: Placed[];
  /** By state: the group each root begins (by the root's id); empty in your order. */
  groups: Map<string, Group>;
}

/**
 * `shown`: the rows the filter shows, in your order (pinned first); `all`: every row (to name a
 * hidden parent); `folded`: the ids of the parents folded.
 */
export function layTrees(
  shown: Row[],
  all: ReadonlyMap<string, Row>,
  order: "state" | "mine",
  folded: ReadonlySet<string>,
): Layout {
  const ids = new Set(shown.map((r) => r.id));
  const kids = new Map<string, Row[]>();
  const roots: Row[] = [];
  for (const row of shown) {
    if (row.parent !== null && row.parent !== row.id && ids.has(row.parent)) {
      const list = kids.get(row.parent);
      if (list) list.push(row);
      else kids.set(row.parent, [row]);
    } else roots.push(row);
  }
  // The most urgent rank in each row's tree, and how many under it need you.
  const rank = new Map<string, number>();
  const needing = new Map<string, number>();
  const descendants = new Map<string, number>();
  const visiting = new Set<string>();
  const measure = (row: Row): void => {
    visiting.add(row.id);
    let best = triageRank(row);
    let need = 0;
    let under = 0;
    for (const k of kids.get(row.id) ?? []) {
      if (visiting.has(k.id) || rank.has(k.id)) continue; // a cycle: never from spawn, but never a hang
      measure(k);
      best = Math.min(best, rank.get(k.id)!);
      need += needing.get(k.id)! + (needsYou(k) ? 1 : 0);
      under += descendants.get(k.id)! + 1;
    }
    rank.set(row.id, best);
    needing.set(row.id, need);
    descendants.set(row.id, under);
  };
  for (const r of roots) measure(r);
  const byUrgency = (rows: Row[]) =>
    order === "mine" ? rows : [...rows].sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);

  const placed: Placed[] = [];
  const groups = new Map<string, Group>();
  const place = (row: Row, depth: number, under: string | null, group: Group | null): void => {
    const children = (kids.get(row.id) ?? []).filter((k) => rank.has(k.id));
    const isFolded = children.length > 0 && folded.has(row.id);
    placed.push({
      row,
      depth,
      under,
      children: children.length,
      descendants: descendants.get(row.id) ?? 0,
      needing: needing.get(row.id) ?? 0,
      folded: isFolded,
      apartFrom: under === null && row.parent !== null ? (all.get(row.parent) ?? null) : null,
    });
    if (group && viewState(row) === group.state) group.count++;
    for (const k of byUrgency(children)) {
      if (isFolded) countIn(k, group);
      else place(k, depth + 1, row.id, group);
    }
  };
  // A folded row's children still count in its group's heading.
  const countIn = (row: Row, group: Group | null): void => {
    if (group && viewState(row) === group.state) group.count++;
    for (const k of kids.get(row.id) ?? []) if (rank.has(k.id)) countIn(k, group);
  };
  let group = null as Group | null;
  for (const root of byUrgency(roots)) {
    if (order === "state") {
      const state = VIEW_STATES[rank.get(root.id)!]!;
      if (group?.state !== state) {
        group = { state, count: 0 };
        groups.set(root.id, group);
      }
    }
    place(root, 0, null, group);
  }
  return { placed, groups };
}
