/**
 * Loaded into the daemon with `node --import` on profile runs only (`npm run bench -- --profile`):
 * the daemon's event-loop delay, without a line of the daemon changed. On SIGUSR2 it writes the
 * histogram since the last one to $BENCH_PROBE_FILE (how late the loop ran, in ms) and starts a
 * new one.
 */
import fs from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { loopLate } from "./stats.js";

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  process.on("SIGUSR2", () => {
    const figures = loopLate(h);
    h.reset();
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(figures));
    fs.renameSync(`${file}.tmp`, file);
  });
}
