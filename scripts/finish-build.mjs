// After tsc: the CLI entry is executable, so `roost` works from a bin link; and typebox is
// bundled into a few files that the built modules import instead of the package.
//
// Why: typebox ships as some 680 small modules, and node's ESM loader resolves, opens and links
// each one. That was about 0.45 s of CPU at every start of the daemon, the ACP bridge and the MCP
// server (measured: importing typebox and typebox/compile, 0.55 s of CPU as the package, 0.13 s
// bundled, beside 0.09 s for node alone). The hub's bundle (vite) has always bundled it.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const vendor = path.join(dist, "vendor/typebox");

fs.chmodSync(path.join(dist, "server/cli/main.js"), 0o755);

/** The entry points of typebox that roost's code imports, and the file each becomes. */
const ENTRIES = { typebox: "typebox", compile: "typebox/compile", error: "typebox/error" };

fs.rmSync(vendor, { recursive: true, force: true });
await build({
  cwd: root,
  input: ENTRIES,
  output: { dir: vendor, format: "esm", entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
  logLevel: "warn",
});

/** Every built module's `from "typebox…"` points at the bundle (the .d.ts files keep the package's types). */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*)"(typebox(?:\/compile|\/error)?)"/g;
const bundled = Object.fromEntries(Object.entries(ENTRIES).map(([file, spec]) => [spec, `${file}.js`]));
for (const dir of ["server", "bridge", "sdk"]) {
  for (const entry of fs.readdirSync(path.join(dist, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, "utf8");
    if (!text.includes('"typebox')) continue;
    const rewritten = text.replace(SPECIFIER, (_, before, spec) => {
      const target = bundled[spec];
      if (!target)
        throw new Error(`${file}: imports ${spec}, which the build does not bundle: add it to ENTRIES`);
      let rel = path.relative(path.dirname(file), path.join(vendor, target));
      if (!rel.startsWith(".")) rel = `./${rel}`;
      return `${before}"${rel}"`;
    });
    if (/["']typebox[/"']/.test(rewritten))
      throw new Error(`${file}: a typebox import the build could not point at the bundle`);
    fs.writeFileSync(file, rewritten);
  }
}
