/**
 * The checks every HTTP request passes before its token is even looked at (docs/http.md,
 * "Auth"): a `Host` that is this machine or one the user listed (DNS rebinding), and, for a
 * request that acts or opens a WebSocket, an `Origin` that is the hub's own (cross-site request
 * forgery and cross-site WebSocket hijacking).
 */
import net from "node:net";

export interface GuardOptions {
  /** http.allowedHosts: names (or name:port) a tunnel or proxy reaches roost by. */
  allowedHosts: readonly string[];
  /** http.allowedOrigins: other origins (a dashboard's) allowed to act and to open WebSockets. */
  allowedOrigins: readonly string[];
}

/** The host name of a `Host` header, lower-cased, without its port (IPv6 without brackets). */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") > 0 ? h.indexOf("]") : undefined);
  const colon = h.lastIndexOf(":");
  return colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

export function isLoopback(name: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, "");
  if (n === "localhost" || n.endsWith(".localhost")) return true;
  if (net.isIPv4(n)) return n.startsWith("127.");
  if (net.isIPv6(n)) return n === "::1" || n === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(n);
  return false;
}

export class Guard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(opts: GuardOptions) {
    this.hosts = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
    this.origins = new Set(opts.allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, "")));
  }

  /** An origin the user listed (http.allowedOrigins): it may act, and gets CORS headers. */
  listedOrigin(origin: string | undefined): boolean {
    return origin !== undefined && this.origins.has(origin.trim().toLowerCase().replace(/\/$/, ""));
  }

  /** Why this Host is refused, or null when it is allowed. */
  refuseHost(host: string | undefined): string | null {
    if (!host) return "a request needs a Host header";
    const h = host.trim().toLowerCase();
    if (isLoopback(hostName(h)) || this.hosts.has(h) || this.hosts.has(hostName(h))) return null;
    return `Host ${JSON.stringify(host)} is not this machine: to reach roost by that name, add it to http.allowedHosts in roost.json`;
  }

  /**
   * Why this Origin may not act here, or null when it may. No Origin is a client that is not a
   * browser (curl, a script): browsers send one with every POST and every WebSocket.
   */
  refuseOrigin(
    origin: string | undefined,
    host: string | undefined,
    fetchSite: string | undefined,
  ): string | null {
    if (origin === undefined) {
      return fetchSite === "cross-site" ? "a cross-site request may not act here" : null;
    }
    if (this.listedOrigin(origin)) return null;
    if (host !== undefined && sameHost(origin.trim().toLowerCase(), host)) return null;
    return `Origin ${JSON.stringify(origin)} is not this hub's: only the hub's own pages (or an origin in http.allowedOrigins) may act or open a WebSocket`;
  }
}

/** The origin is on this Host (the hub's own page), each read as a URL of the origin's scheme. */
function sameHost(origin: string, host: string): boolean {
  try {
    const url = new URL(origin); // "null", or not a URL at all: refused
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    return url.host === new URL(`${url.protocol}//${host.trim()}`).host;
  } catch {
    return false;
  }
}
