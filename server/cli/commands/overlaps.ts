/**
 * `roost overlaps [ID]`: which jobs' worktrees changed the same files, and which of them would
 * conflict if both landed (the rows' `overlaps`, docs/worktrees.md "Overlaps"): a pair a line.
 */
import type { Row } from "../../../sdk/ts/protocol/index.js";
import { type Command, out, printJson } from "../command.js";
import { callOnce } from "../connect.js";
import { clean, paint, wantsColour } from "../format.js";
import { io } from "../io.js";
import { shown } from "./diff.js";

/** Two jobs that changed the same files. */
interface Pair {
  a: string;
  b: string;
  files: string[];
  conflicts: string[];
}

export const overlaps: Command = {
  name: "overlaps",
  args: "[ID]",
  arity: [0, 1],
  summary: "Show which jobs' worktrees changed the same files, and which would conflict.",
  details:
    "Jobs with worktrees of one repository that changed a file in common (committed or not, each\n" +
    "against where it started), and the files their work would conflict in if both landed (git's\n" +
    "merge-tree, nothing checked out). Taken as a job comes to rest and every 5 s while one works.\n" +
    "With ID, that job's alone. --json: [{a, b, files, conflicts}].",
  examples: ["roost overlaps", "roost overlaps j3", "roost overlaps --json"],
  async run({ positionals: [id], json, env }) {
    const { rows } = await callOnce(env, "list", {});
    const pairs = pairsOf(rows, id);
    if (json) {
      printJson(pairs);
      return 0;
    }
    if (pairs.length === 0) {
      out(
        id === undefined
          ? "No two jobs changed the same files."
          : `${id} changed no file another job changed.`,
      );
      return 0;
    }
    const p = paint(wantsColour(io().stdout, env));
    const names = new Map(rows.map((r) => [r.id, `${r.id} ${JSON.stringify(clean(r.name))}`]));
    for (const pair of pairs) {
      const files = pair.files
        .map((f) => (pair.conflicts.includes(f) ? p.red(shown(f)) : shown(f)))
        .join(", ");
      const verdict = pair.conflicts.length
        ? p.red(`would conflict in ${pair.conflicts.length} file${pair.conflicts.length === 1 ? "" : "s"}`)
        : p.green("would merge cleanly");
      out(`${names.get(pair.a) ?? pair.a} and ${names.get(pair.b) ?? pair.b}: ${files} (${verdict})`);
    }
    return 0;
  },
};

/** Each pair once (its lower id first), or those of `id` alone; by id (j2 before j10). */
export function pairsOf(rows: readonly Row[], id?: string): Pair[] {
  const pairs: Pair[] = [];
  for (const r of rows)
    for (const o of r.overlaps ?? []) {
      if (id === undefined ? o.id < r.id : r.id !== id) continue;
      pairs.push({ a: r.id, b: o.id, files: o.files, conflicts: o.conflicts });
    }
  const byId = (x: string, y: string) => x.localeCompare(y, "en", { numeric: true });
  return pairs.sort((x, y) => byId(x.a, y.a) || byId(x.b, y.b));
}
