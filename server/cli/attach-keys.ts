/**
 * What the user types while attached: the keys that detach, the pieces the input op takes, and
 * the user's terminal set to pass the job's output through as it is.
 */
import { execFileSync } from "node:child_process";
import { LIMITS } from "../../sdk/ts/protocol/limits.js";

/**
 * Ctrl-], as telnet's escape: the byte, or the key as a terminal reports it once the job has
 * asked for the kitty keyboard protocol or xterm's modifyOtherKeys.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control keys are what it looks for
export const DETACH_KEY = /\u001d|\u001b\[93;5(?::1)?u|\u001b\[27;5;93~/;
/** What ends `--watch` at a terminal: Ctrl-] or Ctrl-C (a byte in raw mode, not a signal). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control keys are what it looks for
export const WATCH_END = /\u0003|\u001d|\u001b\[(?:93|99);5(?::1)?u|\u001b\[27;5;(?:93|99)~/;

/**
 * Output processing off at the user's terminal, as ssh does: the job's output reaches it exactly,
 * a lone "\n" (a full-screen program's cursor down) staying a line feed. Node's raw mode leaves
 * it on; setRawMode(false), and node at exit, put back the terminal's settings as they were.
 */
export function outputAsIs(): void {
  try {
    execFileSync("stty", ["-opost"], { stdio: ["inherit", "ignore", "ignore"], timeout: 2000 });
  } catch {
    // no stty: "\n" becomes "\r\n", which most programs' output already is
  }
}

/** `text` in pieces no longer than the input op takes, never splitting a surrogate pair. */
export function pieces(text: string, max: number = LIMITS.text): string[] {
  const out: string[] = [];
  let from = 0;
  while (text.length - from > max) {
    let to = from + max;
    const last = text.charCodeAt(to - 1);
    if (last >= 0xd800 && last <= 0xdbff) to--;
    out.push(text.slice(from, to));
    from = to;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}
