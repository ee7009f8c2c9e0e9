/**
 * The browser hub's build: web/ → dist/web/ (index.html + hashed assets), served by the daemon at
 * `/`. Relative asset paths, so that the hub also works under a tunnel's path prefix. Each text
 * file is also written compressed beside it (.br, .gz), once, here: the daemon sends those to a
 * browser that takes them (server/http/hub-files.ts), and compresses nothing per request.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { defineConfig, type Plugin } from "vite";

/** Smaller than this, a file gains nothing worth a second request's bytes from compression. */
const MIN_BYTES = 1024;

function precompress(): Plugin {
  return {
    name: "roost-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|html|svg|json)$/.test(name)) continue;
        const file = path.join(options.dir!, name);
        const data = fs.readFileSync(file);
        if (data.length < MIN_BYTES) continue;
        fs.writeFileSync(
          `${file}.br`,
          zlib.brotliCompressSync(data, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
            },
          }),
        );
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: "web",
  base: "./",
  publicDir: false,
  plugins: [precompress()],
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
    // The service worker (src/sw.ts) is an entry of its own, `sw.js` beside index.html, so that
    // its scope is the hub's and its name stays the same from one build to the next.
    rollupOptions: {
      input: {
        index: path.resolve(import.meta.dirname, "index.html"),
        sw: path.resolve(import.meta.dirname, "src/sw.ts"),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === "sw" ? "sw.js" : "assets/[name]-[hash].js"),
      },
    },
  },
});
