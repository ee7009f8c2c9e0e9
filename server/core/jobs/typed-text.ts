/**
 * What roost types into a terminal for anyone but the user at the keyboard: replies (the user's
 * words from the hub, the concierge's answers), peer items, a job's task. The user's own keystrokes
 * (`input`, an attached terminal) are sent as they are; this is everything else, and it must stay
 * text: no byte of it may end roost's bracketed paste, start an escape sequence, or reorder what
 * the reader sees (docs/terminals.md, "What typed text becomes").
 */

/**
 * The characters a terminal could take as something other than text: C0 controls but tab and
 * newline (ESC among them), DEL, C1 controls (U+0080–U+009F: CSI, OSC, ST…), and the bidi
 * controls (the overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F
 * and U+061C), as the protocol's names fold them (sdk/ts/protocol/text.ts). A carriage return is made a line break
 * before this, as the paste types each line break.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it neutralises
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/** How a control is shown: visible, and never the control itself. */
function shown(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code); // Control Pictures: ␀ … ␟, ESC as ␛
  if (code === 0x7f) return "\u2421"; // ␡
  if (code <= 0x9f) return `\u241b${String.fromCharCode(code - 0x40)}`; // C1 as ␛ and its 7-bit form: CSI is ␛[
  return "\ufffd"; // a bidi control: the replacement character, so that the text reads in its order
}

/**
 * The text with every control replaced by a visible symbol (not dropped: whoever reads it sees
 * that something was there), its line breaks `\n` (`\r\n` and a lone `\r` included).
 */
export function neutralised(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROLS, shown);
}

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
