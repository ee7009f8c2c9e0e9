/**
 * The layering of docs/design.md ("The layers"), kept: every import of every .ts file under
 * server/, bridge/, sdk/ts/ and web/src/ goes down, or stays within its own part; never up, never
 * sideways. A back-edge fails here, naming the file and what it imports. So do a handler that
 * reaches past the core, and a map or a set at a module's level in the core or the op table.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/daemon.js";

interface Part {
  name: string;
  /** The files it holds: those under a folder, or named ones. */
  holds: (file: string) => boolean;
  /** The parts below it that it may import. */
  may: string[];
  /** What it may import from outside the project (a package, node's builtins); any if left out. */
  outside?: (spec: string) => boolean;
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
  "server/config.ts",
  "server/descriptors.ts",
  "server/detached.ts",
  "server/faces/ordered-answers.ts", // no imports: the pty host keeps its answers in order with it too
  "server/home.ts",
  "server/paths.ts",
  "server/secrets.ts",
  "server/stalls.ts",
  "server/validate.ts",
  "server/version.ts",
];

/** The parts, each with where its imports may go (docs/design.md, "The layers"). */
const PARTS: Part[] = [
  {
    name: "the schema set",
    holds: under("sdk/ts/protocol"),
    may: [],
    // The browser bundles it too: no node builtins.
    outside: (s) => s === "typebox" || s.startsWith("typebox/"),
  },
  {
    name: "the SDKs",
    holds: under("sdk/ts/agent", "sdk/ts/client", "sdk/ts/examples"),
    may: ["the schema set"],
    outside: (s) => s.startsWith("node:"),
  },
  // roost's extension for pi: built on the agent client, loaded by pi (whose API it declares itself).
  {
    name: "the pi extension",
    holds: under("sdk/ts/pi"),
    may: ["the SDKs", "the schema set"],
    outside: (s) => s.startsWith("node:"),
  },
  // roost's ACP bridge: a protocol agent on the agent client, an ACP client on the official SDK.
  {
    name: "the ACP bridge",
    holds: under("sdk/ts/acp"),
    may: ["the SDKs", "the schema set"],
    outside: (s) => s.startsWith("node:") || s === "@agentclientprotocol/sdk",
  },
  // `roost mcp`'s server: roost's tools on the official MCP SDK, a session's through its tool relay.
  {
    name: "the MCP server",
    holds: under("sdk/ts/mcp"),
    may: ["the SDKs", "the schema set"],
    outside: (s) => s.startsWith("node:") || s.startsWith("@modelcontextprotocol/sdk/") || s === "zod",
  },
  {
    name: "the hub",
    holds: under("web/src"),
    may: ["the schema set"],
    outside: (s) => !s.startsWith("node:"),
  },
  { name: "the daemon's base", holds: (f) => BASE.includes(f), may: ["the schema set"] },
  { name: "the store", holds: under("server/store"), may: ["the daemon's base", "the schema set"] },
  { name: "the pty host", holds: under("server/pty"), may: ["the daemon's base", "the schema set"] },
  {
    name: "the core",
    holds: under("server/core"),
    may: ["the store", "the pty host", "the daemon's base", "the schema set"],
  },
  {
    name: "the op table",
    holds: under("server/ops"),
    may: ["the core", "the daemon's base", "the schema set"],
  },
  // What both faces share: who is asking, the shape of a request.
  {
    name: "the faces' pieces",
    holds: (f) => f.startsWith("server/faces/") && !BASE.includes(f),
    may: ["the op table", "the core", "the daemon's base", "the schema set"],
  },
  {
    name: "the socket face",
    holds: under("bridge"),
    may: ["the faces' pieces", "the op table", "the core", "the daemon's base", "the schema set"],
  },
  {
    name: "the HTTP face",
    holds: under("server/http"),
    may: ["the faces' pieces", "the op table", "the core", "the daemon's base", "the schema set"],
  },
  // The client of the other daemons' HTTP APIs (roost.json's remotes): the core sees its interface.
  {
    name: "the fleet",
    holds: under("server/fleet"),
    may: ["the core", "the daemon's base", "the schema set"],
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
  },
  // The CLI is a client of the socket (and runs the daemon for `roost daemon`).
  {
    name: "the CLI",
    holds: under("server/cli"),
    may: ["the daemon's wiring", "the MCP server", "the SDKs", "the daemon's base", "the schema set"],
  },
];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sources(rel));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

const FILES = ["server", "bridge", "sdk/ts", "web/src"].flatMap(sources);
const partOf = (file: string) => PARTS.find((p) => p.holds(file));

/** Every module a file imports (static, dynamic, type-only, re-exports), as TypeScript reads it. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(path.join(ROOT, file), "utf8"), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** A relative import as the project's file it names (`./x.js` is `x.ts`). */
function resolve(from: string, spec: string): string {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  return target.replace(/\.js$/, ".ts");
}

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
    expect(FILES.flatMap((file) => wrongImports(file, importsOf(file)))).toEqual([]);
  });

  it("find a back-edge when there is one", () => {
    expect(wrongImports("server/core/x.ts", ["../ops/index.js"])).toHaveLength(1); // up
    expect(wrongImports("server/store/x.ts", ["../core/core.js"])).toHaveLength(1); // up
    expect(wrongImports("bridge/x.ts", ["../server/http/app.js"])).toHaveLength(1); // sideways
    expect(wrongImports("server/store/x.ts", ["../pty/wire.js"])).toHaveLength(1); // sideways
    expect(wrongImports("web/src/x.ts", ["../../server/core/core.js"])).toHaveLength(1);
    expect(wrongImports("sdk/ts/client/x.ts", ["../../../server/ops/index.js"])).toHaveLength(1);
    expect(wrongImports("sdk/ts/protocol/x.ts", ["node:fs"])).toHaveLength(1);
    expect(wrongImports("server/core/x.ts", ["./nowhere.js"])).toHaveLength(1);
    expect(wrongImports("server/ops/x.ts", ["../core/core.js", "./define.js", "node:fs"])).toEqual([]);
    // Type-only imports and those over several lines count as any other.
    expect(importsOf("server/ops/define.ts")).toEqual(
      expect.arrayContaining(["../../sdk/ts/protocol/index.js", "../core/jobs/agents.js", "../core/core.js"]),
    );
  });
});

/** What is wrong with a file's imports: each one that goes up or sideways, or to no part. */
function wrongImports(file: string, specs: string[]): string[] {
  const part = partOf(file)!;
  const wrong: string[] = [];
  for (const spec of specs) {
    if (!spec.startsWith(".")) {
      if (part.outside && !part.outside(spec)) wrong.push(`${file} (${part.name}) imports ${spec}`);
      continue;
    }
    const target = resolve(file, spec);
    const to = partOf(target);
    if (!to || !fs.existsSync(path.join(ROOT, target)))
      wrong.push(`${file} imports ${spec}, which is no source file of a part`);
    else if (to !== part && !part.may.includes(to.name))
      wrong.push(`${file} (${part.name}) imports ${target} (${to.name})`);
  }
  return wrong;
}

/** The op table's files that are no op's: the table itself, an op's shape, its outcome. */
const OP_TABLE_PLUMBING = ["define.ts", "index.ts", "outcome.ts"];
const handlerFiles = fs
  .readdirSync(path.join(ROOT, "server/ops"))
  .filter((f) => f.endsWith(".ts") && !OP_TABLE_PLUMBING.includes(f));

describe('an op\'s handler checks and calls the core (design.md, "Where an op lives")', () => {
  it("never reaches the store or the pty host itself", () => {
    expect(handlerFiles.length).toBeGreaterThan(0);
    for (const file of handlerFiles) {
      const text = fs.readFileSync(path.join(ROOT, "server/ops", file), "utf8");
      expect(text, `server/ops/${file}: the store is the core's`).not.toMatch(/\bcore\.store\b/);
      expect(text, `server/ops/${file}: the pty host is the core's`).not.toMatch(/\bcore\.terminals\b/);
    }
  });
});

describe("state in the open", () => {
  // A memo of a pure function (the JSON of an event object) is no daemon's state (encoded.ts).
  const MEMOS = new Set(["server/core/encoded.ts"]);
  const MUTABLE_AT_TOP =
    /^(?:export\s+)?(?:const|let|var)\s+(\w+)\s*(?::\s*([^=]+))?=\s*(new\s+(?:Weak)?(?:Map|Set)\b|serialPer\b|\[\]|\{\})/;

  it("no map, set or queue at a module's level in the core or the op table: a daemon's state is Core's, or a LiveJob's", () => {
    const found: string[] = [];
    for (const file of FILES.filter(under("server/core", "server/ops"))) {
      if (MEMOS.has(file)) continue;
      fs.readFileSync(path.join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          const m = MUTABLE_AT_TOP.exec(line);
          // A constant typed read-only (a set of names, the op table) holds no state.
          if (m && !/^Readonly(Map|Set)</.test((m[2] ?? "").trim())) found.push(`${file}:${i + 1}: ${m[1]}`);
        });
    }
    expect(found).toEqual([]);
    // What it finds: the shapes state had before it moved to Core and LiveJob.
    for (const line of [
      "const inFlight = new Map<string, Promise<unknown>>();",
      "const attached = new WeakMap<Caller, Map<string, Viewer>>();",
      "const typing = serialPer<LiveJob>();",
      "export let pending: string[] = [];",
    ])
      expect(MUTABLE_AT_TOP.test(line), line).toBe(true);
  });
});
