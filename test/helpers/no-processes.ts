/**
 * Set up before every test file (vitest.config.ts): a unit test starts no process, so in a file
 * of the unit tier every way of starting one throws, naming the tier a test that needs one belongs
 * in; in a file of any other tier they are node's own again. A worker runs files of every tier
 * one after another (vitest.config.ts: one project), so each file sets them as its tier wants.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { expect } from "vitest";

const WAYS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;
type Ways = Record<(typeof WAYS)[number], unknown>;

const cp = childProcess as unknown as Ways;
// Node's own, kept by the worker's first file: this file runs again before each file.
const OWN = Symbol.for("roost.test.childProcess");
const kept = globalThis as unknown as { [OWN]?: Ways };
kept[OWN] ??= Object.fromEntries(WAYS.map((way) => [way, cp[way]])) as Ways;
const own = kept[OWN];

const unit = /[/\\]test[/\\]unit[/\\]/.test(expect.getState().testPath ?? "");
for (const way of WAYS) {
  cp[way] = unit
    ? () => {
        throw new Error(
          `a unit test starts no process (child_process.${way} was called): this test belongs in another tier (vitest.config.ts)`,
        );
      }
    : own[way];
}
// `import { spawn } from "node:child_process"` sees the change too.
syncBuiltinESMExports();
