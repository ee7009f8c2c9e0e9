/**
 * A terminal agent's row, read from its screen (agent-protocol.md, "Running one": until its
 * first report a protocol agent's row is read this way too). The pty host keeps the screen and
 * says what it shows and whether output flows; here that becomes the row: the summary is the
 * last meaningful line, `blocked` when a line near the cursor asks a question.
 */
import type { FullReport } from "../../sdk/ts/protocol/index.js";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { EMPTY_REPORT } from "./registry.js";
import { clip } from "./text.js";

export interface ScreenView {
  lines: string[];
  cursorY: number;
  busy: boolean;
}

/**
 * Questions any terminal program may ask: (y/n), [Y/n], (yes/no) and their kin. Asked only on
 * the last meaningful line (once answered, the program's output follows it); a profile's own
 * patterns may match a few lines up (a question above a menu of answers).
 */
const YES_NO = /[([]\s*(y(es)?\s*\/\s*n(o)?)\s*[)\]]/i;

/** How many meaningful lines above the cursor may hold the question being asked. */
const QUESTION_WINDOW = 3;

/** A line with something to say: a letter or a digit (not a border, a rule, a bare prompt). */
const meaningful = (line: string) => /[\p{L}\p{N}]/u.test(line);

/** A shell's prompt waiting on the cursor's line ("bash-5.2$ ", "~/src %", "> "): not news. */
const PROMPT = /^.{0,80}[$#%>❯]\s*$/u;

export function compilePatterns(patterns: string[] | undefined): RegExp[] {
  return (patterns ?? []).map((p) => new RegExp(p));
}

/** The row's report fields as the screen shows them. */
export function rowFromScreen(view: ScreenView, patterns: RegExp[]): FullReport {
  const candidates: string[] = [];
  for (let y = Math.min(view.cursorY, view.lines.length - 1); y >= 0; y--) {
    const line = (view.lines[y] ?? "").trim();
    if (!meaningful(line)) continue;
    if (y === view.cursorY && PROMPT.test(line)) continue; // the prompt after the output
    candidates.push(line);
    if (candidates.length >= QUESTION_WINDOW) break;
  }
  // Lines below the cursor (a full-screen program's status bar) count only when nothing is above.
  if (candidates.length === 0) {
    for (let y = view.lines.length - 1; y > view.cursorY; y--) {
      const line = (view.lines[y] ?? "").trim();
      if (meaningful(line)) {
        candidates.push(line);
        break;
      }
    }
  }
  const summary = candidates[0] ? clip(candidates[0], LIMITS.summary) : null;
  const last = candidates[0];
  const question =
    last !== undefined && YES_NO.test(last)
      ? last
      : candidates.find((line) => patterns.some((p) => p.test(line)));
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
  return { ...EMPTY_REPORT, state: "working", status: view.busy ? "busy" : "idle", summary };
}
