/**
 * The unix-socket server (the bridge): owner-only, at most 1024 connections; each connection's
 * requests go to the op table. Transport only: it knows no op.
 */
import fs from "node:fs";
import net from "node:net";
import { LIMITS } from "../sdk/ts/protocol/index.js";
import { Connection, type ConnectionOptions, type RunOp } from "./connection.js";

/** How long a refused client has to read its `busy` line before the daemon lets go of it. */
const REFUSED_GRACE_MS = 2000;

export interface BridgeOptions extends ConnectionOptions {
  maxConnections?: number;
  onClosed?: (conn: Connection) => void;
}

export class Bridge {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  /** Refused sockets while their `busy` line goes out. */
  private readonly refused = new Set<net.Socket>();

  constructor(run: RunOp, opts: BridgeOptions = {}) {
    const max = opts.maxConnections ?? LIMITS.connections;
    // Half-open: a client may close its side after its last request and still read the answers.
    this.server = net.createServer({ allowHalfOpen: true }, (socket) => {
      if (this.connections.size >= max) {
        this.refused.add(socket);
        socket.on("close", () => this.refused.delete(socket));
        refuse(socket, max);
        return;
      }
      const conn = new Connection(
        socket,
        run,
        (c) => {
          this.connections.delete(c);
          opts.onClosed?.(c);
        },
        opts,
      );
      this.connections.add(conn);
    });
  }

  get size(): number {
    return this.connections.size;
  }

  /** Listens on `path`, made 0600 before anyone can connect (umask), and 0600 again after. */
  async listen(path: string): Promise<void> {
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        this.server.once("error", reject);
        // A backlog as deep as the connection limit: after a restart every agent reconnects at once.
        this.server.listen({ path, backlog: LIMITS.connections }, () => {
          this.server.off("error", reject);
          resolve();
        });
      });
    } finally {
      process.umask(umask);
    }
    fs.chmodSync(path, 0o600);
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const conn of this.connections) conn.close();
    for (const socket of this.refused) socket.destroy();
    await closed;
  }
}

/**
 * Over the limit: a `busy` line, then closed. What the client sends meanwhile is discarded, not
 * left unread, so that its close is seen and the descriptor goes with it; one that never closes
 * is let go after a grace.
 */
function refuse(socket: net.Socket, max: number): void {
  socket.on("error", () => {});
  const timer = setTimeout(() => socket.destroy(), REFUSED_GRACE_MS);
  timer.unref();
  socket.on("close", () => clearTimeout(timer));
  socket.on("end", () => {
    if (socket.writableFinished) socket.destroy();
    else socket.once("finish", () => socket.destroy());
  });
  socket.resume();
  socket.end(
    `${JSON.stringify({ id: null, ok: false, code: "busy", error: `roost has ${max} connections open, its limit: try again shortly` })}\n`,
  );
}
