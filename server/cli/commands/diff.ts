/**
 * `roost diff ID`: what a job changed (`changes`), as git's unified diff: coloured at a terminal,
 * as it came in a pipe (so that `roost diff j3 | git apply` works), `--stat` for the files alone.
 */
import type { Changes } from "../../../sdk/ts/protocol/index.js";
import { type Command, out, printJson } from "../command.js";
import { callOnce } from "../connect.js";
import { type Paint, paint, wantsColour } from "../format.js";
import { io } from "../io.js";

export const diff: Command = {
  name: "diff",
  args: "ID",
  arity: [1, 1],
  summary: "Show what a job changed: its worktree's diff against where it started, or its repository's.",
  details:
    "A job with a worktree: its branch's commits and its uncommitted work (new files too) against\n" +
    "the commit it started from. Without one: its directory's repository against HEAD. A diff over\n" +
    "1 MiB is cut at a file's start, with a note on stderr saying how to see it all.\n" +
    "--json: {id, dir, against, branch, commits, files, added, removed, diff, truncated, note}.",
  options: {
    stat: { type: "boolean", help: "the files and their counts, no diff" },
  },
  examples: ["roost diff j3", "roost diff j3 --stat", "roost diff j3 | git apply"],
  async run({ positionals: [id], values, json, env }) {
    const stat = values.stat === true;
    const changes = await callOnce(env, "changes", { id: id!, ...(stat ? { stat: true } : {}) });
    if (json) {
      printJson(changes);
      return 0;
    }
    const colour = wantsColour(io().stdout, env);
    const p = paint(colour);
    if (stat) for (const line of statLines(changes, p)) out(line);
    else if (changes.diff) io().stdout.write(colour ? colourDiff(changes.diff, p) : changes.diff);
    else if (io().stderr.isTTY) io().stderr.write(`${id} changed nothing against ${short(changes)}\n`);
    if (changes.note) io().stderr.write(`roost: ${shown(changes.note)}\n`);
    return 0;
  },
};

const short = (c: Changes) => `${c.against.slice(0, 12)}${c.branch ? ` (${shown(c.branch)})` : ""}`;

/** `--stat`: a line a file, then the totals. */
function statLines(c: Changes, p: Paint): string[] {
  const width = Math.max(0, ...c.files.map((f) => f.path.length + (f.from ? f.from.length + 4 : 0)));
  const lines = c.files.map((f) => {
    const name = shown(f.from ? `${f.from} => ${f.path}` : f.path).padEnd(width);
    const counts = f.binary ? p.yellow("binary") : `${p.green(`+${f.added}`)} ${p.red(`-${f.removed}`)}`;
    return ` ${name} | ${counts}`;
  });
  const commits = c.commits.length ? `, ${c.commits.length} commit${c.commits.length === 1 ? "" : "s"}` : "";
  lines.push(
    `${c.files.length} file${c.files.length === 1 ? "" : "s"} changed, ${p.green(`+${c.added}`)} ${p.red(`-${c.removed}`)}${commits} against ${short(c)}`,
  );
  return lines;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: a file's control characters are what it folds
const UNSHOWN = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
/**
 * What a file wrote, made safe to show: its control characters (C0 but the tab, DEL, C1: ESC
 * starts every sequence that moves, clears, retitles or writes the clipboard) and the bidi controls
 * that turn text around (text.ts's list) shown as �, so that a file, or a file's name, cannot drive
 * the terminal or read otherwise than it is.
 */
export const shown = (text: string) => text.replace(UNSHOWN, "\ufffd");

/**
 * git's diff, coloured as git colours its own: headers bold, hunks cyan, added green, removed red.
 * The files' own control characters are shown (`shown`), not obeyed.
 */
export function colourDiff(text: string, p: Paint): string {
  let inHeader = false;
  return text
    .split("\n")
    .map((raw, i, all) => {
      if (i === all.length - 1 && raw === "") return raw;
      const line = shown(raw);
      if (line.startsWith("diff --git ")) inHeader = true;
      else if (line.startsWith("@@")) inHeader = false;
      if (inHeader) return p.bold(line);
      if (line.startsWith("@@")) return p.cyan(line);
      if (line.startsWith("+")) return p.green(line);
      if (line.startsWith("-")) return p.red(line);
      return line;
    })
    .join("\n");
}
