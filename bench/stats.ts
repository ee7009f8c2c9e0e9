/** Measures: percentiles, CPU time and memory of a process, how busy the machine was, the machine a run came from. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { type Histogram, performance } from "node:perf_hooks";

/** The p-th percentile (0..100) of the values, nearest rank; NaN for none. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export const median = (values: ArrayLike<number>) => percentile(values, 50);

/**
 * How late an event loop ran, in ms, from `monitorEventLoopDelay({ resolution: 1 })`: its samples
 * are the whole time between two ticks of its 1 ms timer (an idle loop reads ~1.1 ms), so the tick
 * is taken off.
 */
export function loopLate(h: Histogram): { p50: number; p99: number; max: number; mean: number } {
  const ms = (ns: number) => Math.round(Math.max(0, ns / 1e6 - 1) * 1000) / 1000;
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean) };
}

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

export const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;
