/** Text rules the protocol names, shared by the daemon and its clients (the CLI's table). */

/**
 * Names are folded to one line (docs/protocol.md, "roost's choices": Names): control characters
 * (C0, DEL, C1) and line separators become spaces. The bidirectional controls (U+202A–U+202E,
 * U+2066–U+2069, U+200E, U+200F, U+061C) go: one of them in a name can make it, and what follows it
 * on the line, read backwards in the hub and the CLI ("evil\u202Etxt.exe").
 */
export function oneLine(s: string): string {
  return (
    s
      // biome-ignore lint/suspicious/noControlCharactersInRegex: folding control characters is the point
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
      .replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g, "")
      .trim()
  );
}

/** The capability (hello's) of an agent that takes several items as one delivery (`items`). */
export const ITEM_BATCHES = "item-batches";

/**
 * The text of a delivery that brings several items (docs/protocol.md, "The peer ops": Batches): a line that says
 * how many, then each item's own text (its envelope first), a blank line between. One function, so
 * that a client that drops the items it had finished says the rest as the daemon would.
 */
export function batchText(items: readonly { text: string }[]): string {
  if (items.length === 1) return items[0]!.text;
  return [
    `[roost: ${items.length} items at once, each with its own first line]`,
    ...items.map((i) => i.text),
  ].join("\n\n");
}

/**
 * The characters a terminal could take as something other than text: C0 controls but tab and
 * newline (ESC among them), DEL, C1 controls (U+0080–U+009F: CSI, OSC, ST…), and the bidi
 * controls (the overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F
 * and U+061C), as the protocol's names fold them (`oneLine`, above). A carriage return is made a line break
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
