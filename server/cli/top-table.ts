/**
 * `roost top`'s table (commands/top.ts): the running jobs by what they use, with a header line of
 * totals. Pure: rows and a width in, lines out; the command draws them live or once.
 */
import type { Row } from "../../sdk/ts/protocol/index.js";
import {
  byResources,
  bytesText,
  cpuText,
  type ResourceSort,
  resourceTotals,
} from "../../sdk/ts/protocol/resources-view.js";
import { ago, clean, clip, type Paint, paint, stateLabel } from "./format.js";

export const TOP_SORTS = ["cpu", "mem", "name"] as const;
export type TopSort = (typeof TOP_SORTS)[number];

/** "1:05:12", "4:07", "0:03": CPU time as `top` shows it (hours only when there are any). */
export function cpuTime(seconds: number): string {
  const s = Math.floor(seconds);
  const two = (n: number) => String(n).padStart(2, "0");
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/** The rows `top` shows: those that run with resources read, sorted. */
export function topRows(rows: readonly Row[], sort: TopSort): Row[] {
  const running = rows.filter((r) => r.resources);
  if (sort === "name") return running.sort((a, b) => a.name.localeCompare(b.name));
  return byResources(running, sort as ResourceSort);
}

const HEADS = ["ID", "NAME", "STATE", "CPU", "TIME", "RSS", "PSS", "PROCS", "QUIET"] as const;

/** The table's lines: the totals, a blank line, the heads and a line per running job. */
export function topLines(
  rows: readonly Row[],
  opts: { sort: TopSort; width: number; now?: number; colour?: boolean },
): string[] {
  const p: Paint = paint(opts.colour ?? false);
  const now = opts.now ?? Date.now();
  const shown = topRows(rows, opts.sort);
  const t = resourceTotals(shown);
  const header =
    `roost top: ${t.jobs} running of ${rows.length} jobs · cpu ${cpuText(t.cpu)} · ` +
    `${bytesText(t.rss)} · ${t.procs} processes · sorted by ${opts.sort}`;
  const cells = shown.map((r) => {
    const res = r.resources!;
    return [
      r.id,
      clean(r.name),
      stateLabel(r),
      cpuText(res.cpu),
      cpuTime(res.cpuSeconds),
      bytesText(res.rss),
      bytesText(res.pss),
      String(res.procs),
      ago(res.activeAt, now),
    ];
  });
  const widths = HEADS.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  // The name takes what the others leave, at least 8.
  const others = widths.reduce((a, w, i) => (i === 1 ? a : a + w + 2), 0);
  widths[1] = Math.max(8, Math.min(widths[1]!, opts.width - others - 2));
  const right = new Set([3, 4, 5, 6, 7, 8]);
  const line = (c: readonly string[]) =>
    c
      .map((s, i) => {
        const cut = clip(s, widths[i]!);
        return right.has(i) ? cut.padStart(widths[i]!) : cut.padEnd(widths[i]!);
      })
      .join("  ")
      .trimEnd();
  const body = shown.length === 0 ? [p.dim("no job is running")] : cells.map(line);
  return [clip(header, opts.width), "", p.bold(line(HEADS)), ...body];
}
