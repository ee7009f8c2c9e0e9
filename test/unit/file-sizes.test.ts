/**
 * No shipping TypeScript file over 400 lines (server/, bridge/, sdk/ts/, web/src/): past that a
 * file holds more than one thing, and is split by what its pieces do. Process-free: it reads the
 * tree, nothing else.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/daemon.js";

const SHIPPING = ["server", "bridge", "sdk/ts", "web/src"];
const MAX_LINES = 400;

/** Every .ts file under `dirs` of `root` (relative, `/`-separated), node_modules left out. */
function tsFiles(root: string, dirs: string[]): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory() && e.name !== "node_modules") walk(child);
      else if (e.isFile() && e.name.endsWith(".ts")) found.push(child);
    }
  };
  for (const d of dirs) walk(d);
  return found.sort();
}

/** Its lines as `wc -l` counts them. */
function lineCount(file: string): number {
  const text = fs.readFileSync(file, "utf8");
  return (text.match(/\n/g) ?? []).length;
}

/** The files over the limit, with their lengths: `file (N lines)`. */
function oversized(root: string, dirs: string[]): string[] {
  return tsFiles(root, dirs)
    .map((f) => ({ f, n: lineCount(path.join(root, f)) }))
    .filter(({ n }) => n > MAX_LINES)
    .map(({ f, n }) => `${f} (${n} lines)`);
}

describe("shipping TypeScript files", () => {
  let fixture: string | null = null;
  afterEach(() => {
    if (fixture) fs.rmSync(fixture, { recursive: true, force: true });
    fixture = null;
  });

  it(`are at most ${MAX_LINES} lines each`, () => {
    expect(oversized(ROOT, SHIPPING), "split these by what their pieces do").toEqual([]);
  });

  it("are all found: the check reads every shipping folder", () => {
    const files = tsFiles(ROOT, SHIPPING);
    for (const d of SHIPPING)
      expect(
        files.some((f) => f.startsWith(`${d}/`)),
        d,
      ).toBe(true);
    expect(files).toContain("web/src/rows.ts");
    expect(files).toContain("sdk/ts/agent/reporter.ts");
  });

  it("a file one line over, deep in a shipping folder, is named; one at the limit is not", () => {
    fixture = fs.mkdtempSync(path.join(os.tmpdir(), "roost-file-sizes-"));
    const write = (rel: string, lines: number) => {
      fs.mkdirSync(path.dirname(path.join(fixture!, rel)), { recursive: true });
      fs.writeFileSync(path.join(fixture!, rel), "export {};\n".repeat(lines));
    };
    write("web/src/deep/too-long.ts", MAX_LINES + 1);
    write("sdk/ts/agent/just-fits.ts", MAX_LINES);
    write("web/src/node_modules/dep.ts", 1000); // not ours
    write("docs/not-shipping.ts", 1000);
    expect(oversized(fixture, SHIPPING)).toEqual([`web/src/deep/too-long.ts (${MAX_LINES + 1} lines)`]);
  });
});
