/**
 * The HTTP face (docs/http.md): Fastify, started by the daemon beside
 * the unix socket, calling the same op table. Wiring only: auth (auth.ts), op routes (routes.ts),
 * WebSockets (websockets.ts), OpenAPI, the login link, and the browser hub's files (hub-files.ts).
 */
import http from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import fastifyWebsocket from "@fastify/websocket";
import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { ERROR_CODES, type ErrorCode, LIMITS } from "../../sdk/ts/protocol/index.js";
import type { Core } from "../core/core.js";
import { fileLimit } from "../descriptors.js";
import { outcomeOfThrown } from "../ops/outcome.js";
import { PACKAGE_ROOT } from "../version.js";
import { codeForStatus, sendError, sendOutcome } from "./answers.js";
import { cookieName, installAuth, pathOf } from "./auth.js";
import { capsFor, watchConnections } from "./connections.js";
import { Guard } from "./guard.js";
import { installHub } from "./hub-files.js";
import { installLogin } from "./login.js";
import { openApi } from "./openapi.js";
import { installOpRoutes, routedOps } from "./routes.js";
import { installWebSockets } from "./websockets.js";

export interface HttpOptions {
  /** Where the built hub is (dist/web). */
  webRoot?: string;
  /** A WebSocket client's unread limit before it is dropped. */
  maxUnreadBytes?: number;
}

/** Headers on every answer: nothing cached, nothing sniffed, never framed, no referrer leaves. */
const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy":
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
};

export async function buildHttp(core: Core, opts: HttpOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false, // requests are never logged: a login link carries a token
    bodyLimit: LIMITS.lineBytes, // as a line on the socket
    requestTimeout: 30_000,
    return503OnClosing: true,
    // What Fastify refuses before any route or hook, answered in roost's shape too.
    frameworkErrors: (err, _req, reply) => {
      reply.headers(SECURITY_HEADERS);
      const why =
        err.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? "a part of the path is over 100 characters (a job's id is at most 64)"
          : "the path is not valid (a malformed %-escape?)";
      return sendError(reply, err.code === "FST_ERR_MAX_PARAM_LENGTH" ? "not_found" : "bad_request", why);
    },
    clientErrorHandler: answerClientError,
    // No route declares a schema: an op's args are checked by the op table against the schema set
    // (server/ops), and answers are JSON as they are. So Fastify's validator and serializer
    // compilers (Ajv, fast-json-stringify) are never loaded: loading them was ~20 ms of every
    // daemon's start, spent after its socket opened, while agents reconnect.
    schemaController: {
      compilersFactory: { buildValidator: () => noSchemas, buildSerializer: () => noSchemas },
    },
  });
  const guard = new Guard({
    allowedHosts: core.config.http?.allowedHosts ?? [],
    allowedOrigins: core.config.http?.allowedOrigins ?? [],
  });
  const cookie = cookieName(core.paths.home);

  parseJsonBodies(app);

  // Each JSON answer ends its line: curl's output, and a shell prompt after it, stay readable.
  app.setReplySerializer((payload) => `${JSON.stringify(payload)}\n`);
  app.addHook("onRequest", (_req, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    done();
  });
  // No one without a token holds many connections, or any for long (connections.ts).
  const connections = watchConnections(app, capsFor(fileLimit().soft));
  // First, so that a refused upgrade's socket is closed after its answer (the plugin's hooks).
  await app.register(fastifyWebsocket, { options: { maxPayload: 1024 * 1024 } });
  installAuth(app, guard, core.tokens, cookie, (req) => connections.prove(req.raw.socket));
  answerErrors(app);

  const ops = routedOps();
  const spec = openApi(ops);
  app.get("/healthz", async () => ({ ok: true }));
  app.get("/api/openapi.json", async () => spec);
  installLogin(app, core.tokens, cookie);
  installOpRoutes(app, core, ops);
  installWebSockets(app, core, opts.maxUnreadBytes);
  await installHub(app, opts.webRoot ?? path.join(PACKAGE_ROOT, "dist/web"));
  return app;
}

/** What a route with a schema would be compiled with: there is none, and one added says so at start. */
function noSchemas(): never {
  throw new Error("roost's HTTP routes declare no schemas: check args in the op table (server/ops)");
}

/** An empty body is no args; anything but JSON is refused (a cross-site form cannot send JSON). */
function parseJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(Object.assign(new Error(`the body is not JSON: ${(err as Error).message}`), { statusCode: 400 }));
    }
  });
}

/** Failures, and routes that are not there, answered as the ops' errors are. */
function answerErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _req, reply) => {
    const status = err.statusCode ?? 500;
    // Not one of Fastify's refusals: an exception, answered as one thrown by an op is.
    if (status >= 500) return sendOutcome(reply, outcomeOfThrown(err));
    const message =
      err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
        ? "send the args as JSON, with Content-Type: application/json"
        : err.code === "FST_ERR_CTP_BODY_TOO_LARGE"
          ? `the body is over ${LIMITS.lineBytes} bytes`
          : err.message;
    return sendError(reply, codeForStatus(status), message);
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, "not_found", `no route ${req.method} ${pathOf(req.url)}: see GET /api/openapi.json`),
  );
}

/**
 * A request Node's parser refuses before Fastify sees it (a head over 16 KiB, bytes that are not
 * HTTP): answered in roost's shape, then the connection closed, as Node would.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  // The status from the code, as for every answer of roost's (a head too large is `limit`, 413).
  const [code, error]: [ErrorCode, string] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [
          "limit",
          "the request's head (its path, query and headers) is over 16 KiB: send the args as a POST body",
        ]
      : ["bad_request", "that is not an HTTP request roost can read"];
  const status = ERROR_CODES[code].status;
  const body = `${JSON.stringify({ ok: false, error, code })}\n`;
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy();
}
