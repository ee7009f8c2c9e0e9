/**
 * A row's overlaps (docs/worktrees.md, "Overlaps"): the other jobs of its repository that changed
 * the same files, and whether their work would conflict if both landed. A tag beside the row's
 * name (red for a conflict: it needs someone to act before a merge), and on the job's page each
 * file with who else changed it ("src/auth.ts also changed by j4: would conflict").
 */
import type { Row } from "./api.js";
import { type Child, h } from "./dom.js";

type Overlaps = NonNullable<Row["overlaps"]>;

/** The tag beside the name: "conflicts with j4", "overlaps j4, j7"; null when none. */
export function overlapTag(row: Row): Child {
  const overlaps = row.overlaps ?? [];
  if (overlaps.length === 0) return null;
  const conflicting = overlaps.filter((o) => o.conflicts.length > 0);
  const shown = conflicting.length ? conflicting : overlaps;
  const ids = shown.map((o) => o.id);
  const named = ids.length > 2 ? `${ids.slice(0, 2).join(", ")} +${ids.length - 2}` : ids.join(", ");
  return h(
    "span",
    {
      class: `overlap${conflicting.length ? " conflict" : ""}`,
      title: overlaps.map(describe).join("\n"),
    },
    conflicting.length ? `⚠ conflicts with ${named}` : `overlaps ${named}`,
  );
}

/** The job page's lines: a file each, who else changed it, and whether it would conflict. */
export function overlapList(overlaps: Overlaps): Child {
  if (overlaps.length === 0) return null;
  const byFile = new Map<string, { id: string; conflict: boolean }[]>();
  for (const o of overlaps)
    for (const file of o.files) {
      const list = byFile.get(file) ?? [];
      list.push({ id: o.id, conflict: o.conflicts.includes(file) });
      byFile.set(file, list);
    }
  return h(
    "ul",
    { class: "overlaps" },
    [...byFile].map(([file, others]) =>
      h(
        "li",
        { class: others.some((x) => x.conflict) ? "conflict" : null },
        h("code", null, file),
        " also changed by ",
        others.flatMap((x, i) => [
          i > 0 ? ", " : null,
          h("a", { href: `#/jobs/${x.id}` }, x.id),
          x.conflict ? h("strong", null, ": would conflict") : null,
        ]),
      ),
    ),
  );
}

/** One overlap in words, for a title. */
function describe(o: Overlaps[number]): string {
  const files = o.files.join(", ");
  return o.conflicts.length
    ? `${o.id} changed ${files} too: would conflict in ${o.conflicts.join(", ")}`
    : `${o.id} changed ${files} too: would merge cleanly`;
}
