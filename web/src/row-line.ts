/**
 * A row in the dense view: one line, the screen's width used. Its state, its name (pinned
 * marked; indented under its parent, with its tree's toggle and notes), its profile (and what a
 * worktree's branch changed: `+12 −4`, the branch in its title), what it says (its question when blocked, its error when failed, else its
 * summary, cut to the line with the whole in its title), its choices, when it last changed.
 */
import type { Row } from "./api.js";
import { type Child, h, type KeptParts, timeAgo } from "./dom.js";
import { overlapTag } from "./overlaps-view.js";
import { budgetWords, isBudgetStopped } from "./row-budget.js";
import { badgeWord, displayName, resourcesText, resourcesTitle, stateOf } from "./row-words.js";

/** Another daemon's job is marked with its daemon's name (docs/fleet.md); this daemon's are not. */
export function daemonTag(row: Row): Child {
  return row.daemon ? h("span", { class: "daemon", title: `on the daemon ${row.daemon}` }, row.daemon) : null;
}

/** A sandboxed job's mark (docs/security.md): its token is all it holds of roost. */
export function sandboxTag(row: Row): Child {
  return row.sandboxed
    ? h(
        "span",
        {
          class: "sandboxed",
          title: "in roost's sandbox: it writes only its tree, and cannot act as the hub",
        },
        "sandboxed",
      )
    : null;
}

/** What the line says of the row: the question, the error, or the summary. */
function saying(row: Row): { text: string; kind: string } {
  if (row.state === "blocked" && row.question) return { text: row.question, kind: "q" };
  if (row.error && stateOf(row).word === "failed") return { text: row.error, kind: "err" };
  return { text: row.summary ?? "", kind: "" };
}

/**
 * The row's state badge. A row held in its place once answered (rows-hold.ts) says so: on a line
 * in the badge's place (its state in its title), on a card after its state.
 */
export function stateBadge(row: Row, answered: boolean, line: boolean): HTMLElement {
  const { word, tone, exit } = stateOf(row);
  const state = badgeWord(row, word);
  const cls = `badge b-${tone}${isBudgetStopped(row) ? " b-budget" : ""}`;
  if (line)
    return h(
      "span",
      { class: cls, id: `state-${row.id}`, title: answered ? `answered (now ${state})` : exit },
      answered ? "answered" : state,
    );
  return h(
    "span",
    { class: cls, id: `state-${row.id}` },
    state,
    answered ? h("span", { class: "answered-tag" }, " · answered") : null,
  );
}

/** What a badge shows, for a row to keep its element while that is the same (KeptParts). */
export function badgeShows(row: Row, answered: boolean): unknown {
  const { word, tone, exit } = stateOf(row);
  return [badgeWord(row, word), tone, exit, isBudgetStopped(row), answered];
}

/**
 * The line's cells. The row keeps two of them across its redraws, with what a click goes to in
 * them: `name`, the cell of its name (nameCell's parts), and `choices`, the cell of the question's
 * buttons (row-question.ts), after what it says. The others are kept (in `kept`) while they show
 * the same, so that text selected in them, to copy, outlives a push that changed something else.
 */
export function lineCells(
  row: Row,
  name: HTMLElement,
  choices: Child,
  answered: boolean,
  kept: KeptParts,
): Child[] {
  const said = saying(row);
  const budget = budgetWords(row);
  const profile = [
    row.profile,
    row.worktree?.branch,
    row.worktree?.stat,
    budget,
    resourcesText(row),
    resourcesTitle(row),
  ];
  const time = timeAgo(row.updatedAt);
  return [
    kept.get("line-badge", badgeShows(row, answered), () => stateBadge(row, answered, true)),
    name,
    kept.get("line-profile", profile, () =>
      h(
        "span",
        {
          class: "cell-profile muted",
          title: row.worktree ? `${row.profile}, on branch ${row.worktree.branch}` : null,
        },
        row.profile,
        row.worktree?.stat ? ` · +${row.worktree.stat.added} −${row.worktree.stat.removed}` : null,
        budgetTag(row),
        resourcesTag(row),
      ),
    ),
    kept.get("line-text", said, () =>
      h("span", { class: `cell-text ${said.kind}`, title: said.text || null }, said.text),
    ),
    choices,
    kept.get("line-time", time, () => h("span", { class: "cell-time" }, time)),
  ];
}

/**
 * What the line's cell of the name holds: `tree`, the row's fold toggle and notes (row-tree.ts),
 * around `name`, its link (nameLink).
 */
export function nameCell(
  row: Row,
  tree: { toggle: Child; notes: Child[] },
  name: Child,
): (Child | Child[])[] {
  return [
    tree.toggle,
    row.pinned ? h("span", { class: "pin" }, "pinned") : null,
    name,
    daemonTag(row),
    sandboxTag(row),
    overlapTag(row),
    tree.notes,
  ];
}

/** The row's name, a link to its page; `line`: the dense line's, its id in its title. */
export function nameLink(row: Row, line: boolean): HTMLAnchorElement {
  const name = displayName(row);
  return h(
    "a",
    {
      class: "name",
      id: `name-${row.id}`,
      href: `#/jobs/${row.id}`,
      title: line ? `${name} (${row.id})` : null,
    },
    name,
  );
}

/** " · cpu 12% · 340 MB" for a running job (docs/budgets.md, "Resources"); null for the rest. */
function resourcesTag(row: Row): Child {
  const text = resourcesText(row);
  return text ? h("span", { class: "res", title: resourcesTitle(row) }, ` · ${text}`) : null;
}

/** " · $1.20 of $5": the job's spend against its budget, in the tone of its state; null without one. */
function budgetTag(row: Row): Child {
  const b = budgetWords(row);
  return b ? h("span", { class: `bud s-${b.tone}`, title: b.title }, ` · ${b.short}`) : null;
}
