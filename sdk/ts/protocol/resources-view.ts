/**
 * A row's `resources` (docs/budgets.md, "Resources") in words and orders every face shares: the
 * hub's row meta, sort and header total, and `roost top`.
 */
import type { Row } from "./schema.js";

/** "340 MB", "1.2 GB", "900 kB": decimal units, as `top` and the hub show memory. */
export function bytesText(n: number | null | undefined): string {
  if (n === null || n === undefined) return "-";
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`;
  return `${Math.round(n / 1e3)} kB`;
}

/** "12%", "0.4%", "230%" (100 = one core). */
export function cpuText(cpu: number | null | undefined): string {
  if (cpu === null || cpu === undefined) return "-";
  return cpu < 10 && cpu > 0 ? `${cpu.toFixed(1)}%` : `${Math.round(cpu)}%`;
}

/** "cpu 12% · 340 MB" for a running job's meta; null for a row without resources. */
export function resourcesText(row: Pick<Row, "resources">): string | null {
  const r = row.resources;
  return r ? `cpu ${cpuText(r.cpu)} · ${bytesText(r.rss)}` : null;
}

/** The running jobs' sum: CPU percent, RSS bytes, processes, and how many jobs it counts. */
export function resourceTotals(rows: readonly Pick<Row, "resources">[]): {
  cpu: number;
  rss: number;
  procs: number;
  jobs: number;
} {
  let cpu = 0;
  let rss = 0;
  let procs = 0;
  let jobs = 0;
  for (const { resources: r } of rows) {
    if (!r) continue;
    cpu += r.cpu;
    rss += r.rss;
    procs += r.procs;
    jobs++;
  }
  return { cpu: Math.round(cpu * 10) / 10, rss, procs, jobs };
}

export const RESOURCE_SORTS = ["cpu", "mem"] as const;
export type ResourceSort = (typeof RESOURCE_SORTS)[number];

/**
 * Rows by what they use, most first (CPU, or memory: PSS where read, else RSS); rows without
 * resources after, in the order given. Stable: equal rows keep theirs.
 */
export function byResources<R extends Pick<Row, "resources">>(rows: readonly R[], sort: ResourceSort): R[] {
  const key = (r: R): number => {
    const res = r.resources;
    if (!res) return -1;
    return sort === "cpu" ? res.cpu : (res.pss ?? res.rss);
  };
  return rows
    .map((row, i) => ({ row, i, k: key(row) }))
    .sort((a, b) => b.k - a.k || a.i - b.i)
    .map((x) => x.row);
}
