// After tsc: the packages below are bundled into dist/vendor, a file or a few each, which the
// built modules import instead of the packages; roost's programs are bundled in place (below);
// and the CLI entry is executable, so `roost` works from a bin link.
//
// Why: node's loader resolves, opens, compiles and links every module of a package one by one,
// and these packages are hundreds of small modules (typebox some 680, fastify's tree some 250,
// most of them CommonJS). That was most of the CPU a daemon spends to start, and the suite starts
// a few hundred daemons (measured, node alone 0.08 s: typebox and typebox/compile 0.55 s as the
// package, 0.13 s bundled; fastify, @fastify/static, @fastify/websocket and ws 0.42 s as
// packages, 0.25 s bundled; the ACP bridge's and the MCP server's packages, which start with each
// agent that uses them, likewise). The hub's bundle (vite) has always bundled what it uses.
// Native packages (better-sqlite3, node-pty), pg (the shared board only) and xterm (one file
// already) are left as they are.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const vendor = path.join(dist, "vendor");

/** Each package entry roost's code imports, and the file in dist/vendor it becomes. */
const VENDORED = {
  typebox: "typebox.js",
  "typebox/compile": "typebox-compile.js",
  "typebox/error": "typebox-error.js",
  fastify: "fastify.js",
  "@fastify/static": "fastify-static.js",
  "@fastify/websocket": "fastify-websocket.js",
  ws: "ws.js",
  "@agentclientprotocol/sdk": "acp-sdk.js",
  "@modelcontextprotocol/sdk/server/mcp.js": "mcp-server.js",
  "@modelcontextprotocol/sdk/server/stdio.js": "mcp-stdio.js",
  zod: "zod.js",
};

fs.rmSync(vendor, { recursive: true, force: true });
await build({
  cwd: root,
  input: Object.fromEntries(Object.entries(VENDORED).map(([spec, file]) => [file.slice(0, -3), spec])),
  platform: "node",
  // ws's optional native speed-ups: it runs without them, as it does from the package.
  external: ["bufferutil", "utf-8-validate"],
  output: { dir: vendor, format: "esm", entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
  logLevel: "warn",
});

const quote = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const packageOf = (spec) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");
/** A static or dynamic import of one of `specifiers` (`from "typebox/compile"`), and what may follow it. */
const imports = (specifiers, rest = "") =>
  new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*)"(${specifiers.map(quote).join("|")})${rest}"`, "g");
// Longest first, so that "typebox/compile" is not taken for "typebox".
const SPECIFIER = imports(Object.keys(VENDORED).sort((a, b) => b.length - a.length));
/** Any import of a vendored package, entry or not: none may be left pointing at the package. */
const LEFT = imports([...new Set(Object.keys(VENDORED).map(packageOf))], '(?:/[^"]*)?');

/** Every built module's imports of a vendored package point at its bundle (the .d.ts files keep the package's types). */
for (const dir of ["server", "bridge", "sdk"]) {
  for (const entry of fs.readdirSync(path.join(dist, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, "utf8");
    const rewritten = text.replace(SPECIFIER, (_, before, spec) => {
      let rel = path.relative(path.dirname(file), path.join(vendor, VENDORED[spec]));
      if (!rel.startsWith(".")) rel = `./${rel}`;
      return `${before}"${rel}"`;
    });
    const left = rewritten.match(LEFT);
    if (left)
      throw new Error(`${file}: imports ${left[0]}, which the build does not bundle: add it to VENDORED`);
    if (rewritten !== text) fs.writeFileSync(file, rewritten);
  }
}

/**
 * roost's programs, each bundled in place with its modules (the packages above included): the
 * `roost` command (with the daemon, loaded by `roost daemon` as a chunk of its own), the pty
 * host and the ACP bridge. Why: each start of one loaded its modules one by one, some three
 * hundred for the daemon (measured: the daemon's and its HTTP face's modules 0.57 s of CPU as
 * modules, 0.22 s bundled; a suite run starts some three hundred daemons). The modules stay in
 * dist as tsc built them, for what imports them (the SDK, the pi extension, the tests); a
 * program's own modules are all in its bundle, once each, so a class is one class throughout.
 * What they find on disk they find from the package's root (server/paths.ts, BUILT), not from
 * where their code sits.
 */
const PROGRAMS = ["server/cli/main.js", "server/pty/host.js", "sdk/ts/acp/bridge.js"];
const scratch = fs.mkdtempSync(path.join(dist, ".bundle-"));
try {
  for (const program of PROGRAMS) {
    const file = path.join(dist, program);
    const name = path.basename(file, ".js");
    const out = path.join(scratch, program);
    await build({
      cwd: root,
      input: { [name]: file },
      platform: "node",
      // Packages stay packages (the native ones, pg, xterm); those vendored above are files of
      // dist by now, and bundled like roost's own.
      external: (id) => !id.startsWith(".") && !path.isAbsolute(id),
      output: {
        dir: path.dirname(out),
        format: "esm",
        entryFileNames: "[name].js",
        chunkFileNames: `${name}-chunks/[name]-[hash].js`,
      },
      logLevel: "warn",
    });
    fs.rmSync(path.join(path.dirname(file), `${name}-chunks`), { recursive: true, force: true });
    fs.rmSync(`${file}.map`, { force: true }); // tsc's map, of the module this file no longer is
    fs.cpSync(path.dirname(out), path.dirname(file), { recursive: true });
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
fs.chmodSync(path.join(dist, "server/cli/main.js"), 0o755);
