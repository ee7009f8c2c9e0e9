/**
 * Readable output: the rows as a table fitted to the terminal, ages, feed lines. What agents
 * write (summaries, questions) is shown with its control characters folded, so a row can never
 * move the cursor or recolour the user's terminal.
 */
import { entryText } from "../../sdk/ts/protocol/board-view.js";
import type { FeedEntry, Row } from "../../sdk/ts/protocol/index.js";
import { TONES, type Tone } from "../../sdk/ts/protocol/row-state.js";
import { oneLine } from "../../sdk/ts/protocol/text.js";
import { span } from "../../sdk/ts/protocol/time-words.js";

export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  magenta(s: string): string;
  cyan(s: string): string;
}

const sgr = (on: number, off: number) => (s: string) => `\u001b[${on}m${s}\u001b[${off}m`;
const plain = (s: string) => s;

export function paint(colour: boolean): Paint {
  if (!colour)
    return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, magenta: plain, cyan: plain };
  return {
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
  };
}

/** Colour only for a person at a terminal, and never when NO_COLOR is set (no-color.org). */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

export function terminalWidth(stream: { columns?: number }, env: NodeJS.ProcessEnv): number {
  return stream.columns || Number(env.COLUMNS) || 100;
}

/** One line, no control characters, nothing that turns text around (the protocol's folding of names). */
export const clean = oneLine;

/** Length in code points: close enough to columns for the table (wide characters aside). */
const len = (s: string) => [...s].length;

/** At most `width` code points, with "…" where it was cut. */
export function clip(s: string, width: number): string {
  if (width <= 0) return "";
  const chars = [...s];
  return chars.length <= width ? s : `${chars.slice(0, width - 1).join("")}…`;
}

const pad = (s: string, width: number) => s + " ".repeat(Math.max(0, width - len(s)));

/** "12s", "5m", "1h54m", "4d": how long ago `iso` was (time-words.ts's `span`). */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return "-";
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (Number.isNaN(s)) return "-";
  return span(s);
}

/**
 * The row's state in the words every face uses (row-state.ts's `viewState`: "blocked", "your
 * turn", "failed"...), with the exit code of a job that ended with one: "failed (exit 7)", and why
 * roost stopped one (docs/budgets.md): "asleep" as the hub says, "stopped (budget)".
 */
export function stateLabel(row: Row): string {
  const word = row.view;
  if (row.stopReason === "idle") return "asleep";
  if (row.stopReason === "budget") return `${word} (budget)`;
  return row.life === "exited" && row.exitCode !== null && row.exitCode !== 0
    ? `${word} (exit ${row.exitCode})`
    : word;
}

/** Each tone's colour at a terminal, as the hub's CSS has its own for the same tones. */
const TONE_COLOUR: Record<Tone, keyof Paint> = {
  attention: "yellow",
  failed: "red",
  turn: "magenta",
  working: "cyan",
  done: "green",
  ended: "dim",
};

/** Paints `text` in the colour of `row`'s state. */
export const inStateColour = (row: Row, p: Paint, text: string): string =>
  p[TONE_COLOUR[TONES[row.view]]](text);

/** The row's last word: its question and choices when blocked, its error when failed, else its summary. */
export function rowText(row: Row): string {
  const state = row.view;
  if (state === "blocked") {
    const q = clean(row.question ?? row.summary ?? "waiting for an answer");
    const choices = (row.choices ?? []).map(clean).filter(Boolean);
    return choices.length ? `${q} [${choices.join(" | ")}]` : q;
  }
  if (state === "failed" && row.error) return clean(row.error);
  return clean(row.summary ?? "");
}

const GAP = "  ";
const NAME_MAX = 30;
const NAME_MIN = 8;
/** The share of the free width NAME keeps when NAME and SUMMARY together do not fit. */
const NAME_SHARE = 0.35;

/**
 * The rows as lines: [pin] ID NAME STATE UPDATED SUMMARY. ID, STATE and UPDATED take their widest
 * cell; NAME (at most NAME_MAX) and SUMMARY share the rest of `width`. When both do not fit, NAME
 * keeps NAME_SHARE of it (or what SUMMARY leaves, if more) and SUMMARY is cut. Pinned rows are
 * marked with "*". `depth`: a child's name is indented under its parent's ("└ ", two spaces a
 * level more), as `arrange` placed it.
 */
export function table(
  rows: readonly Row[],
  opts: { width: number; colour: boolean; now?: number; depth?: ReadonlyMap<string, number> },
): string[] {
  const p = paint(opts.colour);
  const now = opts.now ?? Date.now();
  const anyPinned = rows.some((r) => r.pinned);
  const indent = (r: Row) => {
    const depth = opts.depth?.get(r.id) ?? 0;
    return depth > 0 ? `${"  ".repeat(depth - 1)}└ ` : "";
  };
  const cells = rows.map((r) => ({
    row: r,
    pin: r.pinned ? "*" : " ",
    id: r.id,
    name: indent(r) + clean(r.name),
    // A sandboxed job says so beside its state (docs/security.md): its token is all it holds.
    state: r.sandboxed ? `${stateLabel(r)} (sandboxed)` : stateLabel(r),
    age: ago(r.updatedAt, now),
    text: rowText(r),
  }));
  const head = { pin: " ", id: "ID", name: "NAME", state: "STATE", age: "UPDATED", text: "SUMMARY" };
  const widest = (key: "id" | "name" | "state" | "age") =>
    Math.max(len(head[key]), ...cells.map((c) => len(c[key])));
  const w = {
    id: widest("id"),
    name: Math.min(NAME_MAX, widest("name")),
    state: widest("state"),
    age: widest("age"),
  };
  const free = opts.width - (anyPinned ? 1 + GAP.length : 0) - w.id - w.state - w.age - 4 * GAP.length;
  const textWanted = Math.max(len(head.text), ...cells.map((c) => len(c.text)));
  if (w.name + textWanted > free) {
    const share = Math.max(NAME_MIN, Math.floor(free * NAME_SHARE));
    w.name = Math.min(w.name, Math.max(share, free - textWanted));
  }
  const textWidth = free - w.name;

  const line = (c: typeof head, colourState: (s: string) => string, colourText: (s: string) => string) => {
    const parts = [
      pad(c.id, w.id),
      pad(clip(c.name, w.name), w.name),
      colourState(pad(c.state, w.state)),
      pad(c.age, w.age),
    ];
    if (anyPinned) parts.unshift(c.pin === "*" ? p.yellow("*") : " ");
    const text = clip(c.text, textWidth);
    return (text ? [...parts, colourText(text)] : parts).join(GAP).trimEnd();
  };
  return [
    p.bold(line(head, plain, plain)),
    ...cells.map((c) =>
      line(c, (s) => inStateColour(c.row, p, s), c.row.view === "blocked" ? p.yellow : plain),
    ),
  ];
}

/** "14:03:09" for today, "03-12 14:03" before: when a feed entry happened, in local time. */
export function clock(iso: string, now = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, "0");
  const time = `${two(at.getHours())}:${two(at.getMinutes())}`;
  return at.toDateString() === now.toDateString()
    ? `${time}:${two(at.getSeconds())}`
    : `${two(at.getMonth() + 1)}-${two(at.getDate())} ${time}`;
}

/** One feed entry as a line: time, job, kind, text, and who did it when it was not roost itself. */
export function feedLine(e: FeedEntry, p: Paint = paint(false)): string {
  const who = e.who === "roost" ? "" : ` ${p.dim(`(${clean(e.whoId ? `${e.who} ${e.whoId}` : e.who)})`)}`;
  return `${p.dim(clock(e.at))} ${pad(e.id, 4)} ${pad(e.kind, 8)} ${clean(entryText(e))}${who}`;
}

/**
 * Lines of columns, each as wide as its widest cell (at most `max[i]`, cut with "…"), the last
 * cut to what `width` leaves it. `paintCell` colours a cell once padded (the header is bold).
 */
export function columns(
  head: readonly string[],
  cells: readonly (readonly string[])[],
  opts: {
    width: number;
    colour: boolean;
    max?: readonly number[];
    paintCell?: (row: number, col: number, s: string) => string;
  },
): string[] {
  const p = paint(opts.colour);
  const last = head.length - 1;
  const w = head.map((h, i) =>
    Math.min(opts.max?.[i] ?? Infinity, Math.max(len(h), ...cells.map((c) => len(c[i] ?? "")))),
  );
  const lastWidth = Math.max(
    len(head[last]!),
    opts.width - w.slice(0, last).reduce((a, b) => a + b + GAP.length, 0),
  );
  const line = (row: readonly string[], r: number) =>
    row
      .map((cell, i) => {
        const fitted = i === last ? clip(cell, lastWidth) : pad(clip(cell, w[i]!), w[i]!);
        return r >= 0 && opts.paintCell ? opts.paintCell(r, i, fitted) : fitted;
      })
      .join(GAP)
      .trimEnd();
  return [p.bold(line(head, -1)), ...cells.map(line)];
}
