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

/** Starts watching; the returned function stops it. Never keeps the process up. */
export function watchForStalls(log: (line: string) => void = console.warn): () => void {
  let expected = performance.now() + TICK_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - expected;
    expected = now + TICK_MS;
    if (late >= HELD_MS)
      log(`roost: the daemon's thread was held for ${Math.round(late)} ms; every request waited meanwhile`);
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
