/**
 * The hub's files as a real daemon serves them (server/http/hub-files.ts): each by the request's
 * Accept-Encoding, brotli or gzip (as the build wrote them) or as it is, the same bytes once
 * decoded; the hashed assets kept by the browser, index.html asked for again.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startDaemon, type TestDaemon } from "../../helpers/daemon.js";

let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
});
afterAll(async () => d?.cleanup());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET with the owner's token, its body as sent (Node's http decodes nothing, unlike fetch). */
function get(p: string, acceptEncoding?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      new URL(p, d.url),
      {
        headers: {
          authorization: `Bearer ${d.token}`,
          ...(acceptEncoding ? { "accept-encoding": acceptEncoding } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  });
}

const ASSETS = path.join(ROOT, "dist/web/assets");
/** The terminal's bundle (xterm.js, most of the hub's bytes), by its hashed name. */
const terminalJs = () => fs.readdirSync(ASSETS).find((f) => /^terminal-.*\.js$/.test(f))!;

describe("the hub's files", () => {
  it("sends the terminal's bundle as brotli or gzip when the browser takes it, the same bytes decoded", async () => {
    const name = terminalJs();
    expect(name).toBeTruthy();
    const original = fs.readFileSync(path.join(ASSETS, name));

    const br = await get(`assets/${name}`, "gzip, deflate, br, zstd");
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers["cache-control"]).toBe("private, max-age=31536000, immutable");
    expect(br.body.length).toBeLessThan(original.length / 3);
    expect(zlib.brotliDecompressSync(br.body).equals(original)).toBe(true);

    const gz = await get(`assets/${name}`, "gzip");
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.body).equals(original)).toBe(true);

    const plain = await get(`assets/${name}`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.equals(original)).toBe(true);
    console.log(
      `${name}: ${original.length} bytes, brotli ${br.body.length}, gzip ${gz.body.length} as served`,
    );
  });

  it("asks the browser to check index.html each time, and needs the token for the assets", async () => {
    const index = await get("", "br, gzip");
    expect(index.status).toBe(200);
    // Whatever the browser takes: index.html is too small to be written compressed.
    for (const accepts of [undefined, "deflate", "gzip"]) expect((await get("", accepts)).status).toBe(200);
    expect(index.headers["cache-control"]).toBe("no-cache");
    expect(index.body.toString()).toMatch(/<script type="module"[^>]*src="\.\/assets\/index-/);
    const res = await fetch(new URL(`assets/${terminalJs()}`, d.url));
    expect(res.status).toBe(401);
  });
});
