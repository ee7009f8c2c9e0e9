/**
 * Every request, in this order (docs/http.md, "Auth"), before any route or WebSocket upgrade:
 * the Host, then the Origin of a request that acts or upgrades, then the token (a bearer header
 * or the login cookie). `/healthz` and `/login` need no token; everything else does.
 */
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Identity, Tokens } from "../core/tokens.js";
import { sendError } from "./answers.js";
import type { Guard } from "./guard.js";
import { loginPage } from "./pages.js";

const PUBLIC = new Set(["/healthz", "/login"]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const identities = new WeakMap<FastifyRequest, Identity>();

const corsHeaders = (origin: string) => ({
  "access-control-allow-origin": origin,
  "access-control-allow-methods": "GET, POST",
  "access-control-allow-headers": "authorization, content-type",
  "access-control-max-age": "600",
  vary: "Origin",
});

/** Who a request speaks as (set by the hook below for every request that reaches a route). */
export function identityOf(req: FastifyRequest): Identity {
  const id = identities.get(req);
  if (!id) throw new Error("a route ran without its auth hook");
  return id;
}

/** The token a request came with, as its caller carries it (faces/caller.ts): read-only as it is. */
export const tokenOf = (req: FastifyRequest, tokens: Tokens) => ({ identity: identityOf(req), tokens });

/** The login cookie's name: one per roost home, so that two daemons on one machine keep theirs. */
export const cookieName = (home: string) =>
  `roost_${createHash("sha256").update(home).digest("hex").slice(0, 10)}`;

/**
 * `passed` is told of each request whose token passed (not of a public path's): its connection
 * has proved itself (connections.ts).
 */
export function installAuth(
  app: FastifyInstance,
  guard: Guard,
  tokens: Tokens,
  cookie: string,
  passed: (req: FastifyRequest) => void = () => {},
): void {
  app.addHook("onRequest", (req, reply, done) => {
    const { host, origin } = req.headers;
    const refusedHost = guard.refuseHost(host);
    if (refusedHost) return void sendError(reply, "policy", refusedHost);
    const upgrade = req.headers.upgrade?.toLowerCase() === "websocket";
    if (upgrade || !SAFE_METHODS.has(req.method)) {
      const site = req.headers["sec-fetch-site"];
      const refused = guard.refuseOrigin(origin, host, typeof site === "string" ? site : undefined);
      if (refused) return void sendError(reply, "policy", refused);
    }
    // CORS, only for an origin the user listed: its preflight carries no token, and is answered here.
    if (guard.listedOrigin(origin)) {
      reply.headers(corsHeaders(origin!));
      if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
        return void reply.code(204).send();
      }
    }
    if (PUBLIC.has(pathOf(req.url))) return done();
    const identity = tokens.identify(presentedToken(req, cookie));
    if (!identity) return void refuse(req, reply);
    identities.set(req, identity);
    passed(req);
    done();
  });
}

/** The token a request carries: `Authorization: Bearer …`, else the login cookie. */
function presentedToken(req: FastifyRequest, cookie: string): string | undefined {
  const auth = req.headers.authorization;
  if (auth) return /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] ?? "";
  return cookieValue(req.headers.cookie, cookie);
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return ""; // not a token of ours: refused as one
      }
    }
  }
  return undefined;
}

/** 401: a person opening the hub gets a page that says how to log in; a client gets JSON. */
function refuse(req: FastifyRequest, reply: FastifyReply): void {
  const wantsPage = !pathOf(req.url).startsWith("/api/") && (req.headers.accept ?? "").includes("text/html");
  const why = req.headers.authorization
    ? "the token is not one of this roost's (it may have been revoked)"
    : "no token: send Authorization: Bearer <the token in $ROOST_HOME/token>, or open the login link `roost open` prints";
  if (wantsPage) {
    reply.code(401).type("text/html; charset=utf-8").send(loginPage());
    return;
  }
  sendError(reply, "unauthorized", why);
}

export const pathOf = (url: string) => {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
};
