/**
 * A row's place in its tree (tree.ts), as its line or card draws it: the fold toggle of a parent,
 * and beside the name what is under it (how many need you; how many are folded away) or, for a
 * child drawn apart from its hidden parent, whose child it is. The indent is the row's own.
 */

import type { Placed } from "../../sdk/ts/protocol/tree.js";
import type { Row } from "./api.js";
import { type Child, counted, h } from "./dom.js";
import { displayName } from "./row-words.js";

export type TreePlace = Pick<
  Placed,
  "depth" | "children" | "descendants" | "needing" | "folded" | "apartFrom"
>;

export const NO_TREE: TreePlace = {
  depth: 0,
  children: 0,
  descendants: 0,
  needing: 0,
  folded: false,
  apartFrom: null,
};

export const samePlace = (a: TreePlace, b: TreePlace) =>
  a.depth === b.depth &&
  a.children === b.children &&
  a.descendants === b.descendants &&
  a.needing === b.needing &&
  a.folded === b.folded &&
  a.apartFrom === b.apartFrom; // a row pushed is a new object: its name may have changed

const jobs = (n: number) => counted(n, "job");

/**
 * The fold toggle before the name: a parent's (▾ open, ▸ folded). With `room` (the dense view's
 * lines), a row without one keeps its room, so that the names at one depth line up.
 */
export function foldToggle(
  row: Row,
  tree: TreePlace,
  fold: ((id: string) => void) | undefined,
  room: boolean,
): Child {
  if (!tree.children || !fold) return room ? h("span", { class: "fold-space", "aria-hidden": "true" }) : null;
  const what = `the ${jobs(tree.descendants)} under ${displayName(row)}`;
  return h(
    "button",
    {
      type: "button",
      class: "fold",
      "data-focus": "fold",
      "aria-expanded": String(!tree.folded),
      "aria-label": `${tree.folded ? "Show" : "Hide"} ${what}`,
      title: `${tree.folded ? "Show" : "Hide"} ${what} (→ / ←)`,
      onclick: () => fold(row.id),
    },
    tree.folded ? "▸" : "▾",
  );
}

/** What goes after the name: under it, how many need you and how many are folded; or whose child. */
export function treeNotes(tree: TreePlace): Child[] {
  const notes: Child[] = [];
  if (tree.needing > 0)
    notes.push(
      h(
        "span",
        { class: "need-under", title: `${jobs(tree.needing)} under it need you (blocked or failed)` },
        `${tree.needing} below`,
        h("span", { class: "need-words" }, ` need${tree.needing === 1 ? "s" : ""} you`),
      ),
    );
  if (tree.folded)
    notes.push(
      h(
        "span",
        { class: "folded-count muted", title: `${jobs(tree.descendants)} folded under it` },
        `+${tree.descendants}`,
      ),
    );
  const parent = tree.apartFrom;
  if (parent)
    notes.push(
      h(
        "a",
        {
          class: "apart muted",
          href: `#/jobs/${parent.id}`,
          title: `A child of ${displayName(parent)} (${parent.id}), which the filter hides`,
        },
        `↳ of ${displayName(parent)}`,
      ),
    );
  return notes;
}
