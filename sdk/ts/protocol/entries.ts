/**
 * A job's conversation as one reads it (protocol.md, "The conversation"), for the hub and `roost
 * log`: plain code with no imports but types, so the CLI loads no validator to print it.
 */
import type { KeptEntry } from "./conversation.js";

/**
 * The entries as one reads them: a tool call's later entries folded into its first (the status,
 * the output, the title as they last were), so that each call is one item, where it began.
 */
export function foldEntries(entries: readonly KeptEntry[]): KeptEntry[] {
  const out: KeptEntry[] = [];
  const tools = new Map<string, number>();
  for (const e of entries) {
    const id = e.kind === "tool" ? e.tool?.id : undefined;
    const at = id === undefined ? undefined : tools.get(id);
    if (id !== undefined && at !== undefined) {
      out[at] = foldedTool(out[at]!, e);
      continue;
    }
    if (id !== undefined) tools.set(id, out.length);
    out.push(e);
  }
  return out;
}

/** A tool call's first entry with a later one's news: its status, output and title as they now are. */
export function foldedTool(first: KeptEntry, later: KeptEntry): KeptEntry {
  const tool = { ...first.tool!, ...definedOf(later.tool ?? {}) };
  return { ...first, text: later.text ?? first.text, tool, n: later.n };
}

/** The fields that are there (a later entry's missing input does not erase the first's). */
function definedOf<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== "")) as Partial<T>;
}
