import { defineConfig } from "vitest/config";

// Tests start real daemons and real processes: generous timeouts, files in parallel but not
// too many at once on a 2-core machine.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60000,
    hookTimeout: 30000,
    // A failed test prints what its daemons said (test/helpers/on-failure.ts).
    setupFiles: ["test/helpers/on-failure.ts"],
    maxWorkers: 2,
    fileParallelism: true,
  },
});
