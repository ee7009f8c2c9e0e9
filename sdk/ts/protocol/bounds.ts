/**
 * Bounds on values as sent: how deep a value nests, and its size as JSON. Walked without
 * recursion, so that a value nested deeper than `JSON.stringify` (or any recursive walk) can go is
 * refused here, before anything else touches it. No imports, nothing Node's alone: the schema set
 * uses it, and the browser hub and the agent client import the schema set.
 */

const utf8 = new TextEncoder();

/** The path to the first place `value` nests deeper than `max` levels (itself is level 1), or null. */
export function tooDeep(value: unknown, max: number): string[] | null {
  if (typeof value !== "object" || value === null) return null;
  // Every op's args pass here: the walk allocates nothing but its two stacks, and the path is
  // found (by a second walk) only for a value that fails.
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return pathTooDeep(value, max);
    for (const key in v) {
      const child = (v as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return null;
}

/** `tooDeep`'s path, for a value known to nest deeper than `max`. */
function pathTooDeep(value: object, max: number): string[] {
  // Each entry: the value, its depth, and the entry it came from.
  type Step = { v: object; depth: number; key: string; from: Step | null };
  const stack: Step[] = [{ v: value, depth: 1, key: "", from: null }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if (step.depth > max) return pathOf(step);
    for (const key in step.v) {
      const child = (step.v as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null)
        stack.push({ v: child, depth: step.depth + 1, key, from: step });
    }
  }
  return [];
}

function pathOf(step: { key: string; from: unknown }): string[] {
  const keys: string[] = [];
  for (let s: typeof step | null = step; s?.from; s = s.from as typeof step | null) keys.unshift(s.key);
  return keys;
}

/** Its size as UTF-8 JSON; call it only on a value whose depth is bounded. */
export const jsonBytes = (value: unknown): number => {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : utf8.encode(text).length;
};
