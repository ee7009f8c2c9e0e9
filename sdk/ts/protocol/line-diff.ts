/**
 * A conversation's diff entry (a file's text before and after, as an agent says it) as lines kept,
 * removed and added, for the hub and `roost log` to show. The longest common subsequence of lines,
 * with the common start and end taken off first (an edit is most often a few lines in a file);
 * past a size where that costs too much, the middle is shown as all removed, then all added.
 */

export interface DiffLine {
  op: " " | "-" | "+";
  text: string;
}

/** Cells of the table at most (lines before × lines after, once the common ends are off). */
const MAX_CELLS = 1_000_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  const head = a.slice(0, start).map((text): DiffLine => ({ op: " ", text }));
  const tail = a.slice(a.length - end).map((text): DiffLine => ({ op: " ", text }));
  const x = a.slice(start, a.length - end);
  const y = b.slice(start, b.length - end);
  return [...head, ...middle(x, y), ...tail];
}

function middle(x: string[], y: string[]): DiffLine[] {
  if (x.length * y.length > MAX_CELLS)
    return [
      ...x.map((text): DiffLine => ({ op: "-", text })),
      ...y.map((text): DiffLine => ({ op: "+", text })),
    ];
  // lcs[i][j]: the longest common subsequence of x[i..] and y[j..], one row a time kept in full.
  const w = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * w);
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      lcs[i * w + j] =
        x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      out.push({ op: " ", text: x[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) out.push({ op: "-", text: x[i++]! });
    else out.push({ op: "+", text: y[j++]! });
  }
  while (i < x.length) out.push({ op: "-", text: x[i++]! });
  while (j < y.length) out.push({ op: "+", text: y[j++]! });
  return out;
}
