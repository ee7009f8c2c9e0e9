/**
 * A row's details, drawn from its data alone: the line of what the agent reports (tool, model,
 * context, cost, pending replies, PR links), and on a job's page the full list (process, directory…).
 */
import type { Row } from "./api.js";
import { type Child, h, type KeptParts, timeAgo } from "./dom.js";
import { overlapList } from "./overlaps-view.js";
import { budgetWords, isBudgetStopped } from "./row-budget.js";
import { contextWords, costWords, resourcesText, resourcesTitle } from "./row-words.js";

/**
 * The items of the line under the summary (none: nothing to say). Its links (`kept`, the row's:
 * dom.ts) are the same elements while they point at the same place: a push does not take a link
 * from under a press.
 */
export function metaItems(row: Row, kept: KeptParts): Child[] {
  const items: Child[] = [];
  if (row.tool && row.state === "working") items.push(h("li", { class: "tool" }, "⚙ ", row.tool));
  if (row.model) items.push(h("li", null, row.model, row.thinking ? ` · ${row.thinking}` : ""));
  const ctxWords = contextWords(row);
  if (ctxWords) {
    const pct = row.context?.percent;
    items.push(
      h(
        "li",
        { class: `ctx${pct !== undefined && pct >= 80 ? " warn" : ""}` },
        ctxWords,
        pct !== undefined
          ? h("meter", { min: "0", max: "100", value: String(Math.round(pct)), "aria-hidden": "true" })
          : null,
      ),
    );
  }
  const budget = budgetWords(row);
  const cost = costWords(row);
  // The budget's line says the job's cost over all its life: the agent's own figure (this session's) only without it.
  if (cost && !budget)
    items.push(h("li", { class: "cost", title: "what the agent's model has cost this job" }, cost));
  if (budget) items.push(h("li", { class: `budget s-${budget.tone}`, title: budget.title }, budget.text));
  if (isBudgetStopped(row))
    items.push(
      h(
        "li",
        { class: "budget-stop" },
        "stopped: its budget is spent (Respawn or a raised budget continues it)",
      ),
    );
  if (row.worktree) items.push(branchItem(row.worktree));
  const res = resourcesText(row);
  if (res) items.push(h("li", { class: "res muted", title: resourcesTitle(row) }, res));
  if (row.pending > 0)
    items.push(
      h("li", { class: "pending" }, `${row.pending} pending repl${row.pending === 1 ? "y" : "ies"}`),
    );
  if (row.kind === "protocol" && row.life === "running" && !row.connected)
    items.push(h("li", { class: "warn" }, "agent not connected"));
  if (row.suggested) items.push(h("li", { class: "muted" }, `suggested: ${row.suggested.text}`));
  // An agent's links are its to say: only web addresses become links (never javascript: or data:).
  for (const link of (row.prLinks ?? []).filter(isWebLink))
    items.push(
      kept.get(`pr ${link}`, link, () =>
        h("li", null, h("a", { href: link, target: "_blank", rel: "noreferrer noopener" }, "PR")),
      ),
    );
  return items;
}

/** Everything known of the job, as a list of terms (a job's page): its terms and their values; the link kept as above. */
export function detailsItems(row: Row, kept: KeptParts): Child[] {
  const pairs: [string, Child][] = [
    ["Job", row.id],
    ["Profile", `${row.profile} (${row.kind}${row.role ? `, ${row.role}` : ""})`],
    [
      "Process",
      `${row.life}${row.pid ? `, pid ${row.pid}` : ""}${row.exitCode !== null ? `, exit ${row.exitCode}` : ""}`,
    ],
    ["Working directory", h("code", null, row.cwd)],
    ...worktreePairs(row),
    ["Sandbox", row.sandboxed ? "yes: its tree alone writable, roost's home hidden" : "no: it runs as you"],
    [
      "Agent",
      row.agent
        ? `${row.agent.name} ${row.agent.version}`
        : row.kind === "protocol"
          ? "not connected yet"
          : "—",
    ],
    ["Pending replies", String(row.pending)],
    ["Replies sent", String(row.lastSeq)],
    ["Started", timeAgo(row.startedAt) ?? "—"],
    ["Ended", timeAgo(row.endedAt) ?? "—"],
    ["Changed", timeAgo(row.updatedAt)],
  ];
  if (row.waitingFor) pairs.push(["Waiting for", row.waitingFor]);
  if (row.capabilities.length) pairs.push(["Capabilities", row.capabilities.join(", ")]);
  const terms = (list: [string, Child][]) => list.flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)]);
  const parent = row.parent;
  return [
    ...terms(pairs),
    ...(parent
      ? kept.get("parent", parent, () => terms([["Parent", h("a", { href: `#/jobs/${parent}` }, parent)]]))
      : []),
    ...terms(row.usage ? [["Usage", h("code", null, JSON.stringify(row.usage))]] : []),
  ];
}

/** The row's branch and what it changed: `⎇ roost/j3 +12 −4`. */
function branchItem(wt: NonNullable<Row["worktree"]>): Child {
  return h(
    "li",
    { class: "branch", title: `a worktree of ${wt.repo}, from ${wt.base ?? "a detached HEAD"}` },
    "⎇ ",
    h("code", null, wt.branch),
    wt.stat
      ? [
          " ",
          h("span", { class: "added" }, `+${wt.stat.added}`),
          " ",
          h("span", { class: "removed" }, `−${wt.stat.removed}`),
        ]
      : null,
  );
}

function worktreePairs(row: Row): [string, Child][] {
  const wt = row.worktree;
  if (!wt) return [];
  return [
    ["Worktree", h("code", null, wt.path)],
    [
      "Branch",
      h(
        "span",
        null,
        h("code", null, wt.branch),
        ` from ${wt.base ?? "a detached HEAD"} at `,
        h("code", null, wt.baseCommit.slice(0, 12)),
        wt.baseDirty ? " (the base checkout had uncommitted changes, not in the worktree)" : "",
      ),
    ],
    ["Repository", h("code", null, wt.repo)],
    ...(row.overlaps?.length ? [["Overlaps", overlapList(row.overlaps)] as [string, Child]] : []),
    // Its .git was replaced: roost runs no git there, and says why (docs/worktrees.md).
    ...(wt.refused ? [["Refused", wt.refused] as [string, Child]] : []),
  ];
}

function isWebLink(link: string): boolean {
  try {
    const { protocol } = new URL(link);
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}
