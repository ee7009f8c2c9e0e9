/** "Did you mean": the known word nearest to a mistyped one, when one is near enough. */

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`. */
export function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/**
 * The known word `typed` most likely meant: one it starts (`--foll` for `--follow`), or one at
 * most two edits away (one for a short word, so `ls` never suggests `rm`). Null when none is.
 */
export function nearest(typed: string, known: readonly string[]): string | null {
  const t = typed.toLowerCase();
  const starts = known.filter((k) => t.length >= 2 && k.startsWith(t));
  if (starts.length === 1) return starts[0]!;
  const within = t.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestDistance = within + 1;
  for (const k of known) {
    const dist = distance(t, k);
    if (dist < bestDistance) {
      best = k;
      bestDistance = dist;
    }
  }
  return best;
}
