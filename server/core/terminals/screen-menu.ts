/**
 * A numbered menu on a terminal agent's screen: the options of a permission prompt, which Claude
 * Code, Codex and Gemini CLI draw as `❯ 1. Yes` `2. No` and take by their number's key. Its labels
 * are the row's choices while the agent's hooks say it asks (core/jobs/hooked.ts), and a reply
 * naming one is typed as its key.
 */
import type { Menu } from "../jobs/index.js";
import type { ScreenView } from "./screen-rows.js";

/** An option's line: a pointer or a bullet maybe, its number, a dot, its label (`│` borders aside). */
const OPTION = /^[\s│┃|]*(?:[❯›>▶●○◉•*]\s*)?(\d{1,2})[.)]\s+(.+?)[\s│┃|]*$/u;

/** How far above the cursor's line, and below it, a menu is looked for. */
const LOOK = 16;

/** The menu the screen shows near its cursor: options 1, 2, … on consecutive lines; null when none. */
export function menuIn(view: ScreenView): Menu | null {
  const from = Math.max(0, view.cursorY - LOOK);
  const to = Math.min(view.lines.length, view.cursorY + LOOK);
  let best: Menu | null = null;
  let run: Menu = { labels: [], keys: [] };
  for (let y = from; y < to; y++) {
    const m = OPTION.exec(view.lines[y] ?? "");
    const next = String(run.keys.length + 1);
    if (m && m[1] === next) {
      run.keys.push(next);
      run.labels.push(m[2]!);
    } else if (m && m[1] === "1") {
      run = { labels: [m[2]!], keys: ["1"] };
    } else if (!m && run.keys.length > 0 && (view.lines[y] ?? "").trim() !== "") {
      if (run.keys.length >= 2) best = run; // the nearest to the cursor wins: keep looking below
      run = { labels: [], keys: [] };
    }
  }
  if (run.keys.length >= 2) best = run;
  return best;
}
