/**
 * The daemon's thread held up, said in its log. Everything the daemon serves runs on one thread:
 * when it is held (a long synchronous task, a write the kernel throttles, a machine that stalls),
 * every request waits, and a client sees only a late answer. A line here says when and how long,
 * so that a slow answer can be told apart from a lost one afterwards.
 */
import { performance } from "node:perf_hooks";

/** Held this long past a tick's time is worth a line (a busy turn is a few milliseconds). */
const HELD_MS = 2000;
const TICK_MS = 500;

/** The log's line for a hold of `lateMs`, in which the process used `cpuMs` of CPU. */
export function heldLine(lateMs: number, cpuMs: number): string {
  const why = cpuMs >= lateMs / 2 ? "work of its own" : "not its own work; the machine or the disk held it";
  return `roost: the daemon's thread was held for ${Math.round(lateMs)} ms; every request waited meanwhile (it used ${Math.round(cpuMs)} ms of CPU in that time: ${why})`;
}

/** Starts watching; the returned function stops it. Never keeps the process up. */
export function watchForStalls(log: (line: string) => void = console.warn): () => void {
  let expected = performance.now() + TICK_MS;
  let cpuAt = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - expected;
    expected = now + TICK_MS;
    // The CPU the process used since the last tick says which hold it was: one of its own (a
    // long task: the time was spent running) or the machine's (a stall, a throttled write: it
    // was not running at all). Its other threads (the WAL's sync, checkpoints) count too, lightly.
    const cpu = process.cpuUsage();
    const usedMs = (cpu.user - cpuAt.user + cpu.system - cpuAt.system) / 1000;
    cpuAt = cpu;
    if (late >= HELD_MS) log(heldLine(late, usedMs));
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
