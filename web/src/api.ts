/**
 * The daemon's HTTP API, same origin: the login cookie goes with every request, the page never
 * sees the token. Paths are relative, so that the hub also works under a tunnel's path prefix.
 */
import type { FeedEntry, Row } from "../../sdk/ts/protocol/schema.js";

export type { FeedEntry, Row };

export interface Profile {
  name: string;
  description: string | null;
  command: string[];
  task: "type" | "argv";
  protocol: boolean;
}

export interface WhoAmI {
  token: string | null;
  readOnly: boolean;
  daemon: { name: string; version: string };
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
  }
  /** Worth sending again with the same requestId: it may not have arrived. */
  get retryable(): boolean {
    return (
      this.code === "network" || this.code === "busy" || this.code === "rate_limited" || this.status >= 500
    );
  }
}

export const apiUrl = (path: string) => new URL(`api/${path}`, document.baseURI).toString();

export function wsUrl(path: string): string {
  const url = new URL(`api/${path}`, document.baseURI);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

async function answer<T>(res: Promise<Response>): Promise<T> {
  let r: Response;
  try {
    r = await res;
  } catch {
    throw new ApiError("the daemon did not answer (it may be restarting): try again", "network", 0);
  }
  let body: { ok?: boolean; result?: T; error?: string; code?: string };
  try {
    body = await r.json();
  } catch {
    throw new ApiError(`the daemon answered HTTP ${r.status}`, "http", r.status);
  }
  if (!body.ok) throw new ApiError(body.error ?? `HTTP ${r.status}`, body.code ?? "http", r.status);
  return body.result as T;
}

/** `POST /api/<op>` with a JSON body. */
export function op<T = Record<string, never>>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  return answer<T>(
    fetch(apiUrl(name), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(args),
      credentials: "same-origin",
    }),
  );
}

export function get<T>(path: string): Promise<T> {
  return answer<T>(fetch(apiUrl(path), { credentials: "same-origin" }));
}

/** A request id (1–64 of A-Za-z0-9_.:-), made once per user action and sent again on a retry. */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  const rand = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `web.${Date.now().toString(36)}.${rand}`;
}
