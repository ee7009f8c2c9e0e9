/**
 * Speaking to a test daemon's HTTP face: real requests (fetch) and real WebSockets (ws), with the
 * owner's token unless told otherwise. Every WebSocket opened here is closed at `closeAll`.
 */
import net from "node:net";
import WebSocket from "ws";
import type { Roost } from "./daemon.js";
import { arrival, sleep } from "./processes.js";

export interface HttpAnswer {
  status: number;
  body: any;
  headers: Headers;
}

export interface CallOptions {
  /** The bearer token; null for none. Default: the owner's. */
  token?: string | null;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** The body as it is, in place of the args as JSON: for text JSON.stringify cannot make (`1e400`, a duplicate key). */
  body?: string;
  /** For a GET, the query string as it is (without `?`), in place of the args. */
  query?: string;
}

/** `POST /api/<op>` with the args as JSON (or `GET` with them as query parameters). */
export async function api(
  d: Roost,
  op: string,
  args: unknown = {},
  opts: CallOptions = {},
): Promise<HttpAnswer> {
  const token = opts.token === undefined ? d.token : opts.token;
  const headers: Record<string, string> = { ...opts.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let url = `${d.url}api/${op}`;
  let body: string | undefined;
  if (opts.method === "GET") {
    const q =
      opts.query ?? `${new URLSearchParams(Object.entries(args as object).map(([k, v]) => [k, String(v)]))}`;
    if (q !== "") url += `?${q}`;
  } else {
    headers["content-type"] ??= "application/json";
    body = opts.body ?? JSON.stringify(args);
  }
  const res = await fetch(url, { method: opts.method ?? "POST", headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * A raw HTTP/1.1 request on a socket of its own, for what fetch will not send (a Host of another
 * name, an Origin): the status line and headers and body as they came.
 */
export function rawRequest(d: Roost, lines: string[], body = ""): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(d.url);
  const has = (name: string) => lines.some((l) => l.toLowerCase().startsWith(`${name}:`));
  const head = [...lines];
  if (!has("connection")) head.push("Connection: close");
  if (!has("content-length")) head.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(port), hostname);
    let text = "";
    const done = () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    sock.setEncoding("utf8");
    sock.on("data", (chunk) => {
      text += chunk;
      // A whole answer is the answer, whether or not the server closes (or, for an upgrade that
      // went through, its status line and headers).
      if (complete(text)) sock.destroy();
    });
    let failure: Error | null = null;
    sock.on("error", (err) => {
      failure = err;
    });
    sock.on("close", () => (text || !failure ? done() : reject(failure)));
    sock.write(`${head.join("\r\n")}\r\n\r\n${body}`);
  });
}

function complete(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  if (text.startsWith("HTTP/1.1 101")) return true;
  const length = /^content-length: *(\d+)/im.exec(text.slice(0, end))?.[1];
  return length !== undefined && Buffer.byteLength(text.slice(end + 4)) >= Number(length);
}

/** A WebSocket upgrade's request lines (a fixed key: the tests read the status, not the accept). */
export const upgradeLines = (path: string, host: string, extra: string[] = []) => [
  `GET ${path} HTTP/1.1`,
  `Host: ${host}`,
  "Upgrade: websocket",
  "Connection: Upgrade",
  "Sec-WebSocket-Version: 13",
  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
  ...extra,
];

/** A WebSocket client that keeps every message it got, parsed. */
export class TestSocket {
  readonly messages: any[] = [];
  closed: { code: number; reason: string } | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.messages.push(JSON.parse(data.toString())));
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
  }

  static open(
    d: Roost,
    path: string,
    opts: { token?: string | null; headers?: Record<string, string> } = {},
  ) {
    const token = opts.token === undefined ? d.token : opts.token;
    const headers = { ...opts.headers, ...(token !== null ? { authorization: `Bearer ${token}` } : {}) };
    const ws = new WebSocket(`${d.url.replace(/^http/, "ws")}${path.replace(/^\//, "")}`, { headers });
    const socket = new TestSocket(ws);
    open.push(socket);
    return new Promise<TestSocket>((resolve, reject) => {
      ws.once("open", () => resolve(socket));
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      ws.once("error", reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  next<T = any>(pred: (m: any) => boolean, what: string, ms = 15000): Promise<T> {
    return arrival(() => this.messages.find(pred), what, ms, {
      gone: () => (this.closed ? `closed (${this.closed.code} ${this.closed.reason})` : null),
      last: () => `got ${JSON.stringify(this.messages).slice(0, 500)}`,
      pause: () => sleep(20),
    });
  }

  close(): void {
    this.ws.terminate();
  }
}

const open: TestSocket[] = [];

export function closeAllSockets(): void {
  for (const s of open.splice(0)) s.close();
}
