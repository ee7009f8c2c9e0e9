/**
 * What the `roost` command loads before it runs a command: the CLI's own modules, the client,
 * the schema set's plain values; never the daemon (server/main.ts and the core, loaded by
 * `roost daemon` alone, when it runs) nor typebox. Each of those cost a CLI start its CPU: the
 * daemon's modules and typebox's 680 were 0.8 s of a 1.0 s `roost ls`.
 */
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/daemon.js";
import { runtimeImportsOf } from "./guards/imports.js";
import { parse, resolveImport } from "./guards/sources.js";

/** Every module `entry` loads before it runs, following static runtime imports (not `import()`). */
function loadedBy(root: string, entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.endsWith(".ts")) return; // a package or a node: builtin, named as imported
    for (const spec of runtimeImportsOf(parse(root, file)))
      visit(spec.startsWith(".") ? resolveImport(file, spec) : spec);
  };
  visit(entry);
  return seen;
}

/** What the CLI may not load at its start, and why each would be there. */
const NOT_AT_START = [
  { what: /^server\/main\.ts$/, why: "the daemon's wiring: `roost daemon` imports it when it runs" },
  { what: /^server\/(core|ops|store|http|pty)\//, why: "the daemon's parts" },
  { what: /^bridge\//, why: "the socket server" },
  { what: /^typebox/, why: "the schema set's validators: take the plain values from their own modules" },
  { what: /^sdk\/ts\/protocol\/(index|schema|ops)\.ts$/, why: "the schema set's index loads typebox" },
];

/** Each module the CLI at `root` loads at its start that it may not, with why. */
const wrongAtStart = (root: string) =>
  [...loadedBy(root, "server/cli/main.ts")].flatMap((file) =>
    NOT_AT_START.filter((rule) => rule.what.test(file)).map((rule) => `${file}: ${rule.why}`),
  );

describe("the roost command's start", () => {
  it("loads the CLI, the client and plain values, not the daemon nor typebox", () => {
    const loaded = loadedBy(ROOT, "server/cli/main.ts");
    expect(loaded.size).toBeGreaterThan(20); // it did follow the imports
    expect(loaded).toContain("sdk/ts/client/socket-client.ts");
    expect(wrongAtStart(ROOT)).toEqual([]);
  });

  it("names a daemon and a typebox loaded at the start, and not what loads later", () => {
    const fixture = `${ROOT}/test/fixtures/layers/cli-start`;
    expect(wrongAtStart(fixture)).toEqual([
      "server/main.ts: the daemon's wiring: `roost daemon` imports it when it runs",
      "typebox: the schema set's validators: take the plain values from their own modules",
    ]);
  });
});
