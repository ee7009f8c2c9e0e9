/** Small text rules the spec names. */

/** Names are folded to one line (agent-protocol.md, "Others"): control characters become spaces. */
export function oneLine(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: folding control characters is the point
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").trim();
}

/** A short one-line excerpt for the feed and default names. */
export function excerpt(s: string, max = 120): string {
  const line = oneLine(s);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
