import { defineConfig } from "vitest/config";

// `npm run test:chaos` (docs/reliability.md): the chaos cases, and the fuzz again with the chaos
// seed and more runs. One file at a time: each case loads the machine on its own, and its faults
// (kill -9 at random moments) are meant to land under that load, not under another case's.
const seed = process.env.ROOST_CHAOS_SEED ?? "1";
const long = Boolean(process.env.ROOST_CHAOS_MINUTES || process.env.ROOST_CHAOS_SCALE);

export default defineConfig({
  test: {
    include: ["test/chaos/**/*.chaos.ts", "test/daemon/fuzz.test.ts"],
    testTimeout: long ? 4 * 60 * 60 * 1000 : 10 * 60 * 1000,
    hookTimeout: 120000,
    // A failed test prints what its daemons said (test/helpers/on-failure.ts).
    setupFiles: ["test/helpers/on-failure.ts"],
    maxWorkers: 1,
    fileParallelism: false,
    env: {
      ROOST_FUZZ_SEED: String(20250611 + Number(seed)),
      ROOST_FUZZ_SCALE: long ? "10" : "1",
    },
  },
});
