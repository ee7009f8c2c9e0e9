/**
 * A fake remote daemon (docs/fleet.md): a real HTTP server with a real WebSocket upgrade that
 * speaks as much of a roost daemon's API as a daemon following it uses (`/api/subscribe`, `POST
 * /api/<op>`, a job's terminal), and says whatever the test tells it to: hostile data a real
 * daemon would never send. Each WebSocket (a subscription or a terminal) is handed to
 * `onSubscribe`; each call to `onCall`.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type WebSocket from "ws";
import { WebSocketServer } from "ws";
import { NULL_REPORT_FIELDS } from "../../sdk/ts/protocol/index.js";

/** A WebSocket to the fake: `path` is `/api/subscribe`, or a job's terminal (`/api/jobs/ID/terminal`). */
export type OnSubscribe = (ws: WebSocket, fake: FakeRemote, path: string) => void | Promise<void>;
export type OnCall = (
  op: string,
  args: any,
  res: http.ServerResponse,
  fake: FakeRemote,
) => void | Promise<void>;

/** A full, valid row of a remote's (the Row schema), `over` laid over it. */
export function remoteRow(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const at = "2026-01-01T00:00:00.000Z";
  return {
    ...NULL_REPORT_FIELDS,
    state: "working",
    name: `remote-${id}`,
    id,
    profile: "inert",
    role: null,
    kind: "protocol",
    pinned: false,
    order: 0,
    life: "running",
    exitCode: null,
    connected: true,
    capabilities: [],
    agent: null,
    pending: 0,
    lastSeq: 0,
    suggested: null,
    parent: null,
    watches: [],
    pid: 4242,
    cwd: "/tmp",
    worktree: null,
    startedAt: at,
    endedAt: null,
    updatedAt: at,
    ...over,
  };
}

/** The answer a real daemon's `/api/subscribe` opens with: its rows. */
export const subscribed = (rows: unknown[]) => JSON.stringify({ id: null, ok: true, result: { rows } });
/** A `row` push. */
export const rowPush = (row: unknown) => JSON.stringify({ event: "row", row });

/**
 * Sends `text` once the socket has room (its unsent bytes under 4 MiB): false once it closed. A
 * turn of the event loop first, every time: a reader as fast as the flood keeps the unsent bytes
 * low, and a flood that never gave its loop a turn would never see the close it was sent, and
 * would count as sent every row written after it (seen: all 20,000, the connection cut at ~400).
 */
export async function sendWhenRoom(ws: WebSocket, text: string | Buffer): Promise<boolean> {
  await new Promise((r) => setImmediate(r));
  while (ws.readyState === ws.OPEN && ws.bufferedAmount > 4 * 1024 * 1024)
    await new Promise((r) => setTimeout(r, 5));
  if (ws.readyState !== ws.OPEN) return false;
  ws.send(text);
  return true;
}

export class FakeRemote {
  /** Subscribers that connected, in order (each a WebSocket, open or closed). */
  readonly subscribers: WebSocket[] = [];
  /** The ops called over HTTP, in order. */
  readonly calls: { op: string; args: any }[] = [];
  onSubscribe: OnSubscribe = (ws) => ws.send(subscribed([]));
  onCall: OnCall = (_op, _args, res) => {
    res.end(JSON.stringify({ ok: true, result: {} }));
  };

  private constructor(
    private readonly server: http.Server,
    private readonly wss: WebSocketServer,
  ) {}

  /** A fake remote listening on 127.0.0.1 (on `port`, to stand in for one that was there). */
  static async start(port = 0): Promise<FakeRemote> {
    const server = http.createServer();
    const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
    const fake = new FakeRemote(server, wss);
    server.on("request", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const op = (req.url ?? "").replace(/^\/api\//, "").split("?")[0]!;
        let args: unknown = null;
        try {
          args = JSON.parse(Buffer.concat(chunks).toString() || "null");
        } catch {}
        fake.calls.push({ op, args });
        res.setHeader("content-type", "application/json");
        void fake.onCall(op, args, res, fake);
      });
    });
    server.on("upgrade", (req, socket, head) => {
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on("error", () => {}); // the follower cut it: nothing to say
        fake.subscribers.push(ws);
        void fake.onSubscribe(ws, fake, req.url ?? "");
      });
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/`;
  }

  /** The subscriber connected last, once one has. */
  get latest(): WebSocket | undefined {
    return this.subscribers.at(-1);
  }

  /** Every connection cut, the port let go. */
  async close(): Promise<void> {
    for (const ws of this.subscribers) ws.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.wss.close(() => this.server.close(() => resolve())));
  }
}

/** A daemon's RSS in KiB, from /proc/<pid>/status. */
export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}
