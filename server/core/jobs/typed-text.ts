/**
 * What roost types into a terminal for anyone but the user at the keyboard: replies (the user's
 * words from the hub, the concierge's answers), peer items, a job's task. The user's own keystrokes
 * (`input`, an attached terminal) are sent as they are; this is everything else, and it must stay
 * text: no byte of it may end roost's bracketed paste, start an escape sequence, or reorder what
 * the reader sees (docs/terminals.md, "What typed text becomes").
 */

// The text with every control replaced by a visible symbol: the protocol's rule (text.ts), one for
// what roost types and what the CLI prints of an agent's words.
import { neutralised } from "../../../sdk/ts/protocol/text.js";

export { neutralised };

export const PASTE_START = "\x1b[200~";
export const PASTE_END = "\x1b[201~";

/**
 * The keys for a text, then Enter. One line of a reply is typed as it is (a reply `y` answers a y/n
 * prompt as the user would); several lines, a tab, or a `paste` (a peer item: never a key of its
 * own) as one bracketed paste, so that no line is sent alone, a tab is not a completion, and
 * nothing in it can end the paste.
 */
export function keystrokes(text: string, paste = false): string {
  const body = neutralised(text).replace(/\n$/, "");
  return paste || /[\n\t]/.test(body)
    ? `${PASTE_START}${body.replace(/\n/g, "\r")}${PASTE_END}\r`
    : `${body}\r`;
}
