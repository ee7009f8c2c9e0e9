/**
 * A row in the dense view: one line, the screen's width used. Its state, its name (pinned
 * marked; indented under its parent, with its tree's toggle and notes), its profile (and what a
 * worktree's branch changed: `+12 −4`, the branch in its title), what it says (its question when blocked, its error when failed, else its
 * summary, cut to the line with the whole in its title), its choices, when it last changed.
 */
import type { Row } from "./api.js";
import { type Child, h, timeAgo } from "./dom.js";
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
 * The line's cells; `choices`, the cell of the question's buttons (row-question.ts, kept by the row
 * across its redraws), goes after what it says;
 * `tree`, the row's fold toggle and notes (row-tree.ts), around its name.
 */
export function lineCells(row: Row, choices: Child, tree: { toggle: Child; notes: Child[] }): Child[] {
  const { word, tone, exit } = stateOf(row);
  const said = saying(row);
  const name = displayName(row);
  return [
    h(
      "span",
      {
        class: `badge b-${tone}${isBudgetStopped(row) ? " b-budget" : ""}`,
        id: `state-${row.id}`,
        title: exit,
      },
      badgeWord(row, word),
    ),
    h(
      "span",
      { class: "cell-name" },
      tree.toggle,
      row.pinned ? h("span", { class: "pin" }, "pinned") : null,
      h(
        "a",
        { class: "name", id: `name-${row.id}`, href: `#/jobs/${row.id}`, title: `${name} (${row.id})` },
        name,
      ),
      daemonTag(row),
      sandboxTag(row),
      overlapTag(row),
      tree.notes,
    ),
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
    h("span", { class: `cell-text ${said.kind}`, title: said.text || null }, said.text),
    choices,
    h("span", { class: "cell-time" }, timeAgo(row.updatedAt)),
  ];
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
