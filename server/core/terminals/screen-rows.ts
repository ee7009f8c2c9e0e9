/**
 * A terminal agent's row, read from its screen (docs/terminals.md, "The row, from the screen";
 * docs/protocol.md, "report": until its first report a protocol agent's row is read this way too).
 * The pty host keeps the screen and says what it shows and whether output flows; here that becomes
 * the row: the summary is the last meaningful line, `blocked` when a line near the cursor asks a
 * question.
 */
import type { FullReport } from "../../../sdk/ts/protocol/index.js";
import { LIMITS } from "../../../sdk/ts/protocol/index.js";
import { EMPTY_REPORT } from "../jobs/index.js";
import { clip } from "../text.js";

export interface ScreenView {
  lines: string[];
  cursorY: number;
  /** The cursor's column; absent from a pty host of an older roost (then quiet is idle, as it was). */
  cursorX?: number;
  busy: boolean;
  /** The rows (indexes in `lines`) that continue the row above: a line wider than the terminal. */
  wrapped?: number[];
}

/**
 * Questions any terminal program may ask: (y/n), [Y/n], (yes/no) and their kin. Asked only on
 * the last meaningful line (once answered, the program's output follows it); a profile's own
 * patterns may match a few lines up (a question above a menu of answers).
 */
const YES_NO = /[([]\s*(y(es)?\s*\/\s*n(o)?)\s*[)\]]/i;
const YES_NO_ALL = new RegExp(YES_NO.source, "gi");

/** What may follow a (y/n) on its line and still be the question: `?`, `:`, `>`, spaces. */
const QUESTION_END = /^[\s?:.!>»-]*$/u;

/** How many meaningful lines above the cursor may hold the question being asked. */
const QUESTION_WINDOW = 3;

/** A line with something to say: a letter or a digit (not a border, a rule, a bare prompt). */
const meaningful = (line: string) => /[\p{L}\p{N}]/u.test(line);

/** A prompt waiting on the cursor's line ("bash-5.2$ ", "~/src %", ">>> ", a bare "$ "): not news. */
const PROMPT = /^.{0,80}[$#%>❯]\s*$/u;

export function compilePatterns(patterns: string[] | undefined): RegExp[] {
  return (patterns ?? []).map((p) => new RegExp(p));
}

/**
 * The row's report fields as the screen shows them (docs/terminals.md, "The row, from the
 * screen"): the summary is the last meaningful line; `blocked` while a question is asked. A
 * question is over once an answer was typed after it on its line, or the screen moved past it: a
 * prompt waits on the cursor's line below it (even a bare `$ ` or `>>> `: the program is done with
 * it, answered by Enter alone), or a meaningful line came after it (for a profile's patterns, more
 * than a few). A program that waits on a fresh empty line below its question still asks it.
 */
export function rowFromScreen(view: ScreenView, patterns: RegExp[], prompts: RegExp[] = []): FullReport {
  const { lines, cursorY, cursorX } = logicalLines(view);
  const at = Math.min(cursorY, lines.length - 1);
  const cursorLine = (lines[at] ?? "").trim();
  const asks = (line: string) => YES_NO.test(line) || patterns.some((p) => p.test(line));
  const promptWaits = PROMPT.test(cursorLine) && !asks(cursorLine);
  const candidates: string[] = [];
  for (let y = at; y >= 0; y--) {
    const line = (lines[y] ?? "").trim();
    if (!meaningful(line)) continue;
    if (y === at && promptWaits) continue; // the prompt after the output
    candidates.push(line);
    if (candidates.length >= QUESTION_WINDOW) break;
  }
  // Lines below the cursor (a full-screen program's status bar) count only when nothing is above.
  if (candidates.length === 0) {
    for (let y = lines.length - 1; y > at; y--) {
      const line = (lines[y] ?? "").trim();
      if (meaningful(line)) {
        candidates.push(line);
        break;
      }
    }
  }
  const summary = candidates[0] ? clip(candidates[0], LIMITS.summary) : null;
  const question = promptWaits ? undefined : questionIn(candidates, patterns);
  if (question !== undefined) {
    return {
      ...EMPTY_REPORT,
      state: "blocked",
      status: "waiting",
      waitingFor: "question",
      summary,
      question: clip(question, LIMITS.question),
      choices: YES_NO.test(question) ? ["y", "n"] : null,
    };
  }
  // Idle (your turn) once quiet with a prompt at the cursor: a program quiet elsewhere is at work.
  const idle = !view.busy && (cursorX === undefined || atPrompt(lines[at] ?? "", cursorX, prompts));
  return { ...EMPTY_REPORT, state: "working", status: idle ? "idle" : "busy", summary };
}

/** A prompt shows at the cursor: the line up to the cursor (its spaces kept) matches one of `prompts`. */
function atPrompt(line: string, cursorX: number, prompts: RegExp[]): boolean {
  const before = line.padEnd(cursorX).slice(0, cursorX);
  return prompts.some((p) => p.test(before));
}

/** The question the nearest lines ask, if any (`candidates`: the meaningful ones, nearest first). */
function questionIn(candidates: string[], patterns: RegExp[]): string | undefined {
  const last = candidates[0];
  if (last !== undefined && YES_NO.test(last) && !answered(last)) return last;
  return candidates.find((line) => patterns.some((p) => p.test(line)));
}

/** Text after the line's last (y/n), but for the question's own end: an answer typed there. */
function answered(line: string): boolean {
  let end = 0;
  for (const m of line.matchAll(YES_NO_ALL)) end = m.index + m[0].length;
  return !QUESTION_END.test(line.slice(end));
}

/**
 * The screen's lines with each wrapped line whole again, and the cursor's among them: its line, and
 * its column in that whole line (a row another continues keeps its trailing spaces, so lengths add).
 */
function logicalLines(view: ScreenView): { lines: string[]; cursorY: number; cursorX?: number } {
  if (!view.wrapped?.length) return view;
  const continues = new Set(view.wrapped);
  const lines: string[] = [];
  let cursorY = 0;
  let cursorX = view.cursorX;
  for (let y = 0; y < view.lines.length; y++) {
    const line = view.lines[y] ?? "";
    const joined = continues.has(y) && lines.length > 0;
    if (y === view.cursorY && joined && cursorX !== undefined) cursorX += lines[lines.length - 1]!.length;
    if (joined) lines[lines.length - 1] += line;
    else lines.push(line);
    if (y === view.cursorY) cursorY = lines.length - 1;
  }
  return { lines, cursorY, cursorX };
}
