/**
 * The login link, `/login?token=…` (docs/http.md, "The login link"): a valid token becomes a cookie
 * (HttpOnly, SameSite=Strict, Secure over https) and the browser is sent on to `/`, so that the
 * token leaves the address bar at once. `/login?once=…` (`roost open`'s) carries a code good once
 * for a minute instead, and sets the owner's token.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Tokens } from "../core/tokens.js";
import { loginPage } from "./pages.js";

/** How long a login lasts in the browser: revoking the token ends it sooner. */
const COOKIE_MAX_AGE_S = 30 * 24 * 3600;

/** Over https, also when a tunnel or proxy in front says so (the cookie is then never sent in clear). */
const overHttps = (req: FastifyRequest) =>
  req.protocol === "https" ||
  String(req.headers["x-forwarded-proto"] ?? "")
    .split(",")[0]
    ?.trim() === "https";

export function installLogin(app: FastifyInstance, tokens: Tokens, cookie: string): void {
  app.get("/login", async (req, reply) => {
    const query = req.query as { token?: unknown; once?: unknown };
    const token = typeof query.once === "string" ? tokens.redeemOnce(query.once) : query.token;
    const identity = typeof token === "string" ? tokens.identify(token) : null;
    if (!identity) return reply.code(401).type("text/html; charset=utf-8").send(loginPage());
    const attrs = ["Path=/", "HttpOnly", "SameSite=Strict", `Max-Age=${COOKIE_MAX_AGE_S}`];
    if (overHttps(req)) attrs.push("Secure");
    return reply
      .header("set-cookie", `${cookie}=${encodeURIComponent(token as string)}; ${attrs.join("; ")}`)
      .header("cache-control", "no-store")
      .redirect("/", 303);
  });
}
