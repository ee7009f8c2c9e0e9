/**
 * The browser hub's files (dist/web): served compressed and cached where that is safe. The build
 * writes each file's brotli and gzip forms beside it (web/vite.config.ts), so nothing is
 * compressed per request: the terminal's bundle, 335 kB, goes as about 71 kB of brotli over a
 * tunnel. The assets' names carry their content's hash, so a browser keeps them (this user's:
 * `private`, as they are behind the token); index.html is asked for again each time.
 */
import fs from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { notBuiltPage } from "./pages.js";

/** The built bundle, or a page saying it is not built. */
export async function installHub(app: FastifyInstance, root: string): Promise<void> {
  if (!fs.existsSync(path.join(root, "index.html"))) {
    app.get("/", async (_req, reply) => reply.type("text/html; charset=utf-8").send(notBuiltPage()));
    return;
  }
  const assets = path.join(root, "assets") + path.sep;
  await app.register(fastifyStatic, {
    root,
    // `/` is index.html by its own route: with preCompressed, the plugin's own index finds no
    // index.html.br (too small to be written) and answers 404 to any browser.
    index: false,
    cacheControl: false,
    // The .br or .gz beside a file, by the request's Accept-Encoding; the file itself otherwise.
    preCompressed: true,
    setHeaders: (res, file) => {
      res.setHeader("vary", "Accept-Encoding");
      res.setHeader(
        "cache-control",
        file.startsWith(assets) ? "private, max-age=31536000, immutable" : "no-cache",
      );
    },
  });
  app.get("/", (_req, reply) => reply.sendFile("index.html"));
}
