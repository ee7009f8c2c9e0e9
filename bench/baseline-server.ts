/**
 * The report-throughput baseline: a bare Node JSON-lines server, as plain as one is written.
 * Lines split at `\n`, each parsed with JSON.parse and answered `{"id":..,"ok":true,"result":{}}`,
 * one write per answer (as the daemon writes them). Its own process, like the daemon:
 * `node dist/bench/baseline-server.js SOCKET [RESULT_FILE]`; it says `ready` once it listens. With
 * RESULT_FILE, each answer's result is that file's JSON, as it is (the board's floor: the same
 * answers, with nothing done to make them).
 *
 * `baseline-server.js --http`: the same as a bare node:http server on 127.0.0.1 (a free port,
 * said as `ready PORT`): each request's body read and parsed, answered `{"ok":true,"result":{}}`
 * with its Content-Length, on keep-alive connections (the HTTP face's floor).
 */
import fs from "node:fs";
import http from "node:http";
import net from "node:net";

if (process.argv[2] === "--http") serveHttp();
else serveLines();

function serveHttp(): void {
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      try {
        JSON.parse(Buffer.concat(parts).toString("utf8"));
      } catch {}
      const body = `${JSON.stringify({ ok: true, result: {} })}\n`;
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": body.length,
      });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 72_000; // as Fastify's
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`ready ${(server.address() as net.AddressInfo).port}\n`);
  });
  process.on("SIGTERM", () => process.exit(0));
}

function serveLines(): void {
  const [socketPath, resultFile] = process.argv.slice(2);
  if (!socketPath)
    throw new Error("usage: baseline-server.js SOCKET [RESULT_FILE] | baseline-server.js --http");
  const result = resultFile ? fs.readFileSync(resultFile, "utf8").trim() : null;
  const answer = (id: unknown) =>
    result === null
      ? JSON.stringify({ id, ok: true, result: {} })
      : `{"id":${JSON.stringify(id)},"ok":true,"result":${result}}`;
  fs.rmSync(socketPath, { force: true });

  const server = net.createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      let start = 0;
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n", start)) {
        const line = buffer.slice(start, nl);
        start = nl + 1;
        let id: unknown = null;
        try {
          id = (JSON.parse(line) as { id?: unknown }).id ?? null;
        } catch {}
        socket.write(`${answer(id)}\n`);
      }
      buffer = buffer.slice(start);
    });
    socket.on("error", () => {});
  });

  server.listen(socketPath, () => process.stdout.write("ready\n"));
  process.on("SIGTERM", () => process.exit(0));
}
