/**
 * A job's conversation as `roost log` prints it: one block an entry, a tool call once (its later
 * entries folded in: foldEntries), its input and output indented below it, a plan's steps, a diff's
 * lines. What the agent wrote is printed with its controls shown as symbols (text.ts), so it can
 * never move the cursor or recolour the terminal.
 */
import type { KeptEntry } from "../../sdk/ts/protocol/conversation.js";
import { foldEntries } from "../../sdk/ts/protocol/entries.js";
import { lineDiff } from "../../sdk/ts/protocol/line-diff.js";
import { neutralised, oneLine } from "../../sdk/ts/protocol/text.js";
import type { Paint } from "./format.js";

const PLAN_MARK = { pending: "[ ]", in_progress: "[>]", completed: "[x]" } as const;

const time = (at: number) => new Date(at).toTimeString().slice(0, 8);
const indent = (text: string, by = "    ") =>
  neutralised(text)
    .split("\n")
    .map((l) => `${by}${l}`)
    .join("\n");

const WHO = { user: "you", agent: "agent", peer: "peer" } as const;

/** One entry (a tool call folded) as lines of text. */
export function entryText(e: KeptEntry, p: Paint): string {
  const head = `${p.dim(time(e.at))} `;
  const text = e.text ?? "";
  switch (e.kind) {
    case "message":
      return `${head}${p.bold(`${WHO[e.role ?? "agent"]}:`)}\n${indent(text)}`;
    case "thinking":
      return `${head}${p.dim("thinking:")}\n${p.dim(indent(text))}`;
    case "tool": {
      const t = e.tool!;
      const status =
        t.status === "failed"
          ? p.red(t.status)
          : t.status === "completed"
            ? p.green(t.status)
            : p.yellow(t.status);
      const lines = [`${head}${p.cyan(`tool ${oneLine(t.name)}`)}: ${oneLine(text || t.name)} (${status})`];
      if (t.input) lines.push(`  ${p.dim("input:")}`, indent(t.input));
      if (t.output) lines.push(`  ${p.dim("output:")}`, indent(t.output));
      return lines.join("\n");
    }
    case "plan":
      return [
        `${head}${p.magenta("plan:")}`,
        ...(e.plan ?? []).map((s) => `    ${PLAN_MARK[s.status]} ${oneLine(s.text)}`),
      ].join("\n");
    case "diff": {
      const d = e.diff!;
      const lines = lineDiff(d.old ?? "", d.new).map((l) => {
        const line = neutralised(`${l.op} ${l.text}`);
        return l.op === "+" ? p.green(line) : l.op === "-" ? p.red(line) : line;
      });
      return [
        `${head}${p.magenta(`diff ${oneLine(d.path)}${d.old === undefined ? " (new)" : ""}`)}`,
        ...lines.map((l) => `    ${l}`),
      ].join("\n");
    }
    case "ask": {
      const choices = (e.choices ?? []).map((c, i) => `${i + 1}. ${oneLine(c)}`).join("  ");
      return `${head}${p.yellow("asks:")} ${oneLine(text)}${choices ? `\n    ${choices}` : ""}`;
    }
    case "answer":
      return `${head}${p.bold("you answered:")} ${oneLine(text)}`;
  }
}

/** The conversation, oldest first: its last `tail` items when asked. */
export function conversationText(entries: readonly KeptEntry[], p: Paint, tail?: number): string {
  const items = foldEntries(entries);
  const shown = tail === undefined ? items : tail === 0 ? [] : items.slice(-tail);
  return shown.map((e) => `${entryText(e, p)}\n`).join("\n");
}
