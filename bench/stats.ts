/** Figures: percentiles, CPU time of a process, the machine a run came from, and the table. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";

/** The p-th percentile (0..100) of the values, nearest rank; NaN for none. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export const median = (values: ArrayLike<number>) => percentile(values, 50);

/** A process's CPU time so far (user + system), in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number | "self"): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  // After the command's ")": state is field 3, utime 14, stime 15 (1-based, in clock ticks).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's read and write system calls so far (every thread's), from /proc/<pid>/io. */
export function syscalls(pid: number | "self"): { reads: number; writes: number } {
  const io = fs.readFileSync(`/proc/${pid}/io`, "utf8");
  return { reads: Number(/syscr: (\d+)/.exec(io)?.[1]), writes: Number(/syscw: (\d+)/.exec(io)?.[1]) };
}

/** The machine's CPU time so far, every CPU together (ms): busy, and stolen by the hypervisor. */
export function machineCpuMs(): { busy: number; steal: number } {
  const line = fs.readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const [user, nice, system, , , irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq!;
  return { busy: (busy * 1000) / CLOCK_TICKS, steal: (steal! * 1000) / CLOCK_TICKS };
}

/**
 * How busy the rest of the machine was during a phase, in CPUs: all the machine's CPU time less
 * the processes named (the server, the benchmark), and what the hypervisor took. The figure that
 * says whether a phase was measured on a quiet machine.
 */
export class Contention {
  private readonly m0 = machineCpuMs();
  private readonly p0: number[];
  private readonly t0 = performance.now();

  constructor(private readonly pids: (number | "self")[]) {
    this.p0 = pids.map((pid) => cpuMs(pid));
  }

  end(): { otherCpus: number; stealCpus: number } {
    const m1 = machineCpuMs();
    const ours = this.pids.reduce<number>((s, pid, i) => s + cpuMs(pid) - this.p0[i]!, 0);
    const wall = performance.now() - this.t0;
    return {
      otherCpus: round(Math.max(0, m1.busy - this.m0.busy - ours) / wall, 2),
      stealCpus: round((m1.steal - this.m0.steal) / wall, 2),
    };
  }
}

/** A process's resident set size, in MiB, from /proc/<pid>/status. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** A process's memory from /proc (KiB): RSS, and PSS (shared pages divided among their users). */
export function memKiB(pid: number): { rss: number; pss: number } {
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  let pss = Number.NaN;
  try {
    pss = Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1]);
  } catch {}
  return { rss, pss };
}

/** A figure without a baseline or a target: it is there to explain the others. */
export function info(scenario: string, name: string, unit: string, roost: number): Figure {
  return { scenario, name, unit, roost, baseline: null, ratio: null, target: null, met: null };
}

/** A figure with no baseline and a ceiling: met when below it (`target` says it, "< 10 ms" by default). */
export function underTarget(
  scenario: string,
  name: string,
  unit: string,
  roost: number,
  ceiling: number,
  target = `< ${ceiling} ${unit}`,
): Figure {
  return { scenario, name, unit, roost, baseline: null, ratio: null, target, met: roost < ceiling };
}

export interface Machine {
  nproc: number;
  cpu: string;
  node: string;
  os: string;
  memGiB: number;
  loadAvg: number[];
  commit: string | null;
}

export function machine(root: string): Machine {
  let commit: string | null = null;
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {}
  return {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAvg: os.loadavg().map((l) => Math.round(l * 100) / 100),
    commit,
  };
}

/** One line of the table: a figure of roost's, and the baseline's when it has one. */
export interface Figure {
  scenario: string;
  name: string;
  unit: string;
  roost: number;
  baseline: number | null;
  /** roost ÷ baseline (the median of each round's own ratio where there are rounds). */
  ratio: number | null;
  /** What is asked, said for the table ("ratio ≥ 0.70", "< 5 ms"); null: for information only. */
  target: string | null;
  met: boolean | null;
}

export function table(figures: Figure[]): string {
  const head = ["scenario", "figure", "roost", "baseline", "ratio", "target", "met"];
  const rows = figures.map((f) => [
    f.scenario,
    f.name,
    num(f.roost, f.unit),
    f.baseline === null ? "—" : num(f.baseline, f.unit),
    f.ratio === null ? "—" : f.ratio.toFixed(2),
    f.target ?? "—",
    f.met === null ? "" : f.met ? "yes" : "NO",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const right = new Set([2, 3, 4]);
  const line = (cells: string[]) =>
    cells.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** A figure with its unit, rounded for reading. */
export function num(v: number, unit: string): string {
  if (!Number.isFinite(v)) return "n/a";
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  const s = v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  return unit ? `${s} ${unit}` : s;
}

export const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;
