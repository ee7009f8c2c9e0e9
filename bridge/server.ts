/**
 * The unix-socket server (the bridge): owner-only, at most 1024 connections; each connection's
 * requests go to the op table. Transport only: it knows no op.
 */
import fs from "node:fs";
import net from "node:net";
import { LIMITS } from "../sdk/ts/protocol/index.js";
import { Connection, type ConnectionOptions, type RunOp } from "./connection.js";

export interface BridgeOptions extends ConnectionOptions {
  maxConnections?: number;
  onClosed?: (conn: Connection) => void;
}

export class Bridge {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();

  constructor(run: RunOp, opts: BridgeOptions = {}) {
    const max = opts.maxConnections ?? LIMITS.connections;
    this.server = net.createServer((socket) => {
      if (this.connections.size >= max) {
        socket.on("error", () => {});
        socket.end(
          `${JSON.stringify({ id: null, ok: false, code: "busy", error: `roost has ${max} connections open, its limit: try again shortly` })}\n`,
        );
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
        this.server.listen(path, () => {
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
    await closed;
  }
}
