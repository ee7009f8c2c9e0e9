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
