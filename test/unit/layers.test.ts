/**
 * The layering of docs/design.md ("The layers"), kept: every import of every .ts file under
 * server/, bridge/, sdk/ts/ and web/src/ goes down, or stays within its own part; never up, never
 * sideways; and each part uses only the packages its row allows. No module loads itself through
 * its imports. A handler does not reach past the core, and the core and the op table keep no state
 * at a module's level. Each check reads the code's syntax (the TypeScript compiler's), and each is
 * shown to find what it claims on the files of test/fixtures/layers, which break every rule.
 */
import fs from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/daemon.js";
import { cycles, importGraph } from "./guards/cycles.js";
import { reachesPastCore } from "./guards/handler-reach.js";
import { importsOf, packageOf, runtimeImportsOf } from "./guards/imports.js";
import { moduleState } from "./guards/module-state.js";
import { parse, resolveImport, sourceFiles } from "./guards/sources.js";

/** A tree that breaks each rule, read as if it were the repository's. */
const FIXTURES = path.join(ROOT, "test/fixtures/layers");
const SOURCES = ["server", "bridge", "sdk/ts", "web/src"];

interface Part {
  name: string;
  /** The files it holds: those under a folder, or named ones. */
  holds: (file: string) => boolean;
  /** The parts below it that it may import. */
  may: string[];
  /** The packages it may import (a subpath, `typebox/compile`, is its package's). */
  packages: string[];
  /** Whether it may import node's builtins (by their `node:` name: a bare `fs` is no package). */
  node: boolean;
}

const under =
  (...dirs: string[]) =>
  (file: string) =>
    dirs.some((d) => file.startsWith(`${d}/`));
/**
 * What the whole daemon shares, below all its parts: the home's checks, paths, config, the version,
 * the watch on its thread, what a secret looks like.
 */
const BASE = [
  "server/builtin-profiles.ts",
  "server/config.ts",
  "server/conversation-files.ts",
  "server/descriptors.ts",
  "server/detached.ts",
  "server/faces/ordered-answers.ts", // no imports: the pty host keeps its answers in order with it too
  "server/home.ts",
  "server/notify-config.ts",
  "server/paths.ts",
  "server/secrets.ts",
  "server/stalls.ts",
  "server/validate.ts",
  "server/version.ts",
];

/**
 * The parts, each with where its imports may go and which packages it may use (docs/design.md,
 * "The layers"). A new package is a new line here, and in design.md: a choice made in the open.
 */
const PARTS: Part[] = [
  // The browser bundles it too: no node builtins.
  { name: "the schema set", holds: under("sdk/ts/protocol"), may: [], packages: ["typebox"], node: false },
  {
    name: "the SDKs",
    holds: under("sdk/ts/agent", "sdk/ts/client", "sdk/ts/examples"),
    may: ["the schema set"],
    packages: [],
    node: true,
  },
  // roost's extension for pi: built on the agent client, loaded by pi (whose API it declares itself).
  {
    name: "the pi extension",
    holds: under("sdk/ts/pi"),
    may: ["the SDKs", "the schema set"],
    packages: [],
    node: true,
  },
  // roost's ACP bridge: a protocol agent on the agent client, an ACP client on the official SDK.
  {
    name: "the ACP bridge",
    holds: under("sdk/ts/acp"),
    may: ["the SDKs", "the schema set"],
    packages: ["@agentclientprotocol/sdk"],
    node: true,
  },
  // `roost mcp`'s server: roost's tools on the official MCP SDK, a session's through its tool relay.
  {
    name: "the MCP server",
    holds: under("sdk/ts/mcp"),
    may: ["the SDKs", "the schema set"],
    packages: ["@modelcontextprotocol/sdk", "zod"],
    node: true,
  },
  // A page in a browser: what it bundles, no node builtins.
  {
    name: "the hub",
    holds: under("web/src"),
    may: ["the schema set"],
    packages: ["@xterm/xterm", "@xterm/addon-fit", "diff2html"],
    node: false,
  },
  {
    name: "the daemon's base",
    holds: (f) => BASE.includes(f),
    may: ["the schema set"],
    packages: ["typebox"],
    node: true,
  },
  {
    name: "the store",
    holds: under("server/store"),
    may: ["the daemon's base", "the schema set"],
    packages: ["better-sqlite3", "pg"],
    node: true,
  },
  {
    name: "the pty host",
    holds: under("server/pty"),
    may: ["the daemon's base", "the schema set"],
    packages: ["@lydell/node-pty", "@xterm/headless", "@xterm/addon-serialize"],
    node: true,
  },
  {
    name: "the core",
    holds: under("server/core"),
    may: ["the store", "the pty host", "the daemon's base", "the schema set"],
    // typebox to check what the store gives back, croner to read `when`, ws for a remote's terminal.
    packages: ["typebox", "croner", "ws"],
    node: true,
  },
  // A handler checks and calls the core: nothing of its own to import.
  {
    name: "the op table",
    holds: under("server/ops"),
    may: ["the core", "the daemon's base", "the schema set"],
    packages: [],
    node: false,
  },
  // What both faces share: who is asking, the shape of a request.
  {
    name: "the faces' pieces",
    holds: (f) => f.startsWith("server/faces/") && !BASE.includes(f),
    may: ["the op table", "the core", "the daemon's base", "the schema set"],
    packages: [],
    node: false,
  },
  {
    name: "the socket face",
    holds: under("bridge"),
    may: ["the faces' pieces", "the op table", "the core", "the daemon's base", "the schema set"],
    packages: [],
    node: true,
  },
  {
    name: "the HTTP face",
    holds: under("server/http"),
    may: ["the faces' pieces", "the op table", "the core", "the daemon's base", "the schema set"],
    packages: ["fastify", "@fastify/static", "@fastify/websocket", "ws", "typebox"],
    node: true,
  },
  // The client of the other daemons' HTTP APIs (roost.json's remotes): the core sees its interface.
  {
    name: "the fleet",
    holds: under("server/fleet"),
    may: ["the core", "the daemon's base", "the schema set"],
    packages: ["ws"],
    node: true,
  },
  {
    name: "the daemon's wiring",
    holds: (f) => f === "server/main.ts",
    may: [
      "the socket face",
      "the HTTP face",
      "the fleet",
      "the faces' pieces",
      "the op table",
      "the core",
      "the store",
      "the pty host",
      "the daemon's base",
      "the SDKs",
      "the schema set",
    ],
    packages: ["fastify"],
    node: true,
  },
  // The CLI is a client of the socket (and runs the daemon for `roost daemon`).
  {
    name: "the CLI",
    holds: under("server/cli"),
    may: ["the daemon's wiring", "the MCP server", "the SDKs", "the daemon's base", "the schema set"],
    packages: [],
    node: true,
  },
];

const FILES = sourceFiles(ROOT, SOURCES);
const partOf = (file: string) => PARTS.find((p) => p.holds(file));
const imports = (root: string, file: string) => importsOf(fs.readFileSync(path.join(root, file), "utf8"));

describe("the layers (docs/design.md)", () => {
  it("hold every source file, each in one part", () => {
    for (const file of FILES) {
      const holders = PARTS.filter((p) => p.holds(file)).map((p) => p.name);
      expect(
        holders,
        `${file} belongs to no part, or to several: say where in design.md and here`,
      ).toHaveLength(1);
    }
  });

  it("are imported downwards only: nothing imports up or sideways", () => {
    expect(FILES.flatMap((file) => wrongImports(file, imports(ROOT, file)))).toEqual([]);
  });

  it("find a back-edge when there is one", () => {
    expect(wrongImports("server/core/x.ts", ["../ops/index.js"])).toHaveLength(1); // up
    expect(wrongImports("server/store/x.ts", ["../core/core.js"])).toHaveLength(1); // up
    expect(wrongImports("bridge/x.ts", ["../server/http/app.js"])).toHaveLength(1); // sideways
    expect(wrongImports("server/store/x.ts", ["../pty/wire.js"])).toHaveLength(1); // sideways
    expect(wrongImports("web/src/x.ts", ["../../server/core/core.js"])).toHaveLength(1);
    expect(wrongImports("sdk/ts/client/x.ts", ["../../../server/ops/index.js"])).toHaveLength(1);
    expect(wrongImports("server/core/x.ts", ["./nowhere.js"])).toHaveLength(1);
    expect(wrongImports("server/ops/x.ts", ["../core/core.js", "./define.js"])).toEqual([]);
    // Type-only imports, dynamic ones and those over several lines count as any other.
    expect(imports(ROOT, "server/ops/define.ts")).toEqual(
      expect.arrayContaining(["../../sdk/ts/protocol/index.js", "../core/jobs/agents.js", "../core/core.js"]),
    );
    expect(imports(ROOT, "server/main.ts")).toContain("./http/start.js");
  });

  it("use the packages their row allows, and node's builtins only where it allows them", () => {
    expect(FILES.flatMap((file) => wrongPackages(file, imports(ROOT, file)))).toEqual([]);
  });

  it("find a package a part may not use", () => {
    const wrong = ["sdk/ts/protocol/packages.ts", "web/src/packages.ts", "server/store/packages.ts"].flatMap(
      (file) => wrongPackages(file, imports(FIXTURES, file)),
    );
    expect(wrong).toEqual([
      "sdk/ts/protocol/packages.ts (the schema set) imports node:fs: no node builtin here",
      "sdk/ts/protocol/packages.ts (the schema set) imports zod: not among its packages (typebox)",
      "web/src/packages.ts (the hub) imports node:path: no node builtin here",
      "web/src/packages.ts (the hub) imports marked: not among its packages (@xterm/xterm, @xterm/addon-fit, diff2html)",
      "server/store/packages.ts (the store) imports path: not among its packages (better-sqlite3, pg); a builtin is node:path",
      "server/store/packages.ts (the store) imports fastify: not among its packages (better-sqlite3, pg)",
    ]);
  });
});

/** What is wrong with a file's imports of the project: each one that goes up or sideways, or to no part. */
function wrongImports(file: string, specs: string[]): string[] {
  const part = partOf(file)!;
  const wrong: string[] = [];
  for (const spec of specs.filter((s) => s.startsWith("."))) {
    const target = resolveImport(file, spec);
    const to = partOf(target);
    if (!to || !fs.existsSync(path.join(ROOT, target)))
      wrong.push(`${file} imports ${spec}, which is no source file of a part`);
    else if (to !== part && !part.may.includes(to.name))
      wrong.push(`${file} (${part.name}) imports ${target} (${to.name})`);
  }
  return wrong;
}

/** What is wrong with a file's imports of packages: each one its part may not use. */
function wrongPackages(file: string, specs: string[]): string[] {
  const part = partOf(file)!;
  const wrong: string[] = [];
  for (const spec of specs.filter((s) => !s.startsWith("."))) {
    const pkg = packageOf(spec);
    if (pkg === "node:") {
      if (!part.node) wrong.push(`${file} (${part.name}) imports ${spec}: no node builtin here`);
    } else if (!part.packages.includes(pkg)) {
      const builtin = isBuiltin(spec) ? `; a builtin is node:${spec}` : "";
      const allowed = part.packages.join(", ") || "none";
      wrong.push(`${file} (${part.name}) imports ${spec}: not among its packages (${allowed})${builtin}`);
    }
  }
  return wrong;
}

describe("no module loads itself through its imports", () => {
  const runtimeGraph = (root: string, files: string[]) =>
    importGraph(files, (file) => runtimeImportsOf(parse(root, file)));

  it("no runtime import cycle among the project's modules", () => {
    expect(cycles(runtimeGraph(ROOT, FILES))).toEqual([]);
  });

  it("finds a cycle, in a folder or across subfolders, and not one of types alone", () => {
    const files = sourceFiles(FIXTURES, ["server"]);
    expect(files).toContain("server/core/types-a.ts");
    expect(cycles(runtimeGraph(FIXTURES, files)).sort()).toEqual([
      "server/core/board/rules.ts → server/core/board/state.ts → server/core/board/rules.ts",
      "server/core/board/state.ts → server/core/board/rules.ts → server/core/board/state.ts",
      "server/core/cycle-a.ts → server/core/cycle-b.ts → server/core/cycle-a.ts",
      "server/core/cycle-b.ts → server/core/cycle-a.ts → server/core/cycle-b.ts",
    ]);
  });
});

describe('an op\'s handler checks and calls the core (design.md, "Where an op lives")', () => {
  it("never reaches the store or the pty host itself, however it spells it", () => {
    const ops = FILES.filter(under("server/ops"));
    expect(ops.length).toBeGreaterThan(40);
    expect(ops.flatMap((file) => reachesPastCore(parse(ROOT, file)))).toEqual([]);
  });

  it("finds each way to reach them", () => {
    expect(reachesPastCore(parse(FIXTURES, "server/ops/thin.ts"))).toEqual([]);
    expect(reachesPastCore(parse(FIXTURES, "server/ops/reach.ts"))).toEqual([
      "server/ops/reach.ts:8: c.store",
      'server/ops/reach.ts:9: c["terminals"]',
      "server/ops/reach.ts:10: { store } = core",
      "server/ops/reach.ts:11: { store: s } = core",
      "server/ops/reach.ts:11: { terminals: t } = core",
      "server/ops/reach.ts:13: alias.store",
      "server/ops/reach.ts:15: rest.terminals",
      "server/ops/reach.ts:22: { store } = core",
      "server/ops/reach.ts:26: core?.store",
      'server/ops/reach.ts:29: Core["store"]',
      "server/ops/reach.ts:32: { terminals } = core",
      "server/ops/reach.ts:33: core.store",
    ]);
  });
});

describe("state in the open", () => {
  /** The one exception, by file name and binding: a memo of a pure function is no daemon's state. */
  const MEMOS: Record<string, string> = { "encoded.ts": "cache" };

  it("no state at a module's level in the core or the op table: a daemon's state is Core's, or a LiveJob's", () => {
    const files = FILES.filter(under("server/core", "server/ops"));
    expect(files.flatMap((file) => moduleState(parse(ROOT, file), MEMOS[path.basename(file)]))).toEqual([]);
  });

  it("finds each shape state takes, and not a constant", () => {
    expect(moduleState(parse(FIXTURES, "server/core/read-only.ts"), "memo")).toEqual([]);
    expect(moduleState(parse(FIXTURES, "server/core/module-state.ts"))).toEqual([
      "server/core/module-state.ts:4: pending (a top-level let or var)",
      "server/core/module-state.ts:5: count (a top-level let or var)",
      "server/core/module-state.ts:6: seen (a top-level let or var)",
      "server/core/module-state.ts:7: inFlight (a new Map)",
      "server/core/module-state.ts:8: attached (a new WeakMap)",
      "server/core/module-state.ts:9: typing (a new OneAtATime)",
      "server/core/module-state.ts:10: queue (changed after it is made)",
      "server/core/module-state.ts:11: byName (changed after it is made)",
      "server/core/module-state.ts:12: board (changed after it is made)",
      "server/core/module-state.ts:13: totals (changed after it is made)",
      "server/core/module-state.ts:14: list (changed after it is made)",
      "server/core/module-state.ts:15: next (what a function run in place returns (its closure))",
      "server/core/module-state.ts:20: Registry.jobs (a static field)",
      "server/core/module-state.ts:21: Registry.live (a static field)",
    ]);
  });
});
