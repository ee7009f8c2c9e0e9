/**
 * Set up before every file of the unit tier (vitest.config.ts): a unit test starts no process, so
 * every way of starting one throws, naming the tier a test that needs one belongs in.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

const WAYS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;

for (const way of WAYS) {
  (childProcess as unknown as Record<string, unknown>)[way] = () => {
    throw new Error(
      `a unit test starts no process (child_process.${way} was called): this test belongs in another tier (vitest.config.ts)`,
    );
  };
}
// `import { spawn } from "node:child_process"` sees the change too.
syncBuiltinESMExports();
