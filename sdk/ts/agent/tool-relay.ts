/**
 * A session's tools, lent to a process of its own agent: the peer ops and the task board are a
 * session's, on its own connection to roost (the one its reports go through), and a tool server
 * the agent starts (`roost mcp`, started by an ACP agent) is another process. So the process that
 * holds the session's connection (roost's ACP bridge) listens on a unix socket in the job's
 * directory (0600: its user's alone, as roost's own socket), and the tool server's calls go through
 * it, each a call on the session's connection: the session acts as itself, and its row stays its
 * agent's.
 *
 * The wire is roost's own, smaller: JSON lines `{"id", "op", "args"}` in, `{"id", "ok": true,
 * "result"}` or `{"id", "ok": false, "code", "error"}` out, for the ops in `RELAYED_OPS` only.
 * Node builtins only.
 */
import fs from "node:fs";
import net from "node:net";
import { LineSplitter } from "../protocol/lines.js";
import { CONCIERGE_OPS } from "./concierge-calls.js";
import { AgentCallError } from "./requests.js";
import { mayResend, RIDE_OUT_MS, roostAway } from "./ride-out.js";
import { SessionOps } from "./session-ops.js";

/** What a tool server may ask of the session: its peer ops, the board, and a concierge's own; nothing else. */
export const RELAYED_OPS = ["peers", "send", "spawn", "handback", "watch", "task", ...CONCIERGE_OPS] as const;

/** The environment variable that tells a tool server where the session's relay listens. */
export const RELAY_ENV = "ROOST_TOOLS_SOCKET";

/** The relay's side: listens at `file` and carries each call to `session` (the one that reports). */
export async function serveRelay(file: string, session: SessionOps): Promise<net.Server> {
  fs.rmSync(file, { force: true }); // a previous life's socket
  const server = net.createServer((socket) => {
    const lines = new LineSplitter(4 * 1024 * 1024);
    const answer = (msg: Record<string, unknown>) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(msg)}\n`);
    };
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      lines.push(chunk);
      for (let line = lines.next(); line !== undefined; line = lines.next()) {
        let msg: { id?: unknown; op?: unknown; args?: unknown };
        try {
          msg = JSON.parse(line);
        } catch {
          answer({ id: null, ok: false, code: "bad_request", error: "not a JSON line" });
          continue;
        }
        const { id, op, args } = msg;
        if (typeof op !== "string" || !(RELAYED_OPS as readonly string[]).includes(op)) {
          answer({
            id,
            ok: false,
            code: "bad_request",
            error: `the relay takes ${RELAYED_OPS.join(", ")}; not ${JSON.stringify(op)}`,
          });
          continue;
        }
        const given = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
        session.call(op, given).then(
          (result) => answer({ id, ok: true, result }),
          (err: AgentCallError) =>
            answer({ id, ok: false, code: err.code ?? "busy", error: err.message ?? String(err) }),
        );
      }
    });
  });
  const umask = process.umask(0o077); // 0600 from its first moment
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(file, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  server.unref(); // it keeps no process alive by itself
  return server;
}

/**
 * The tool server's side: the session's ops, each a call on a JSON-lines connection to `file`,
 * which is either the relay above (an ACP job's: its agent never holds the job's token) or
 * roost's own socket, where `opening` (`speak_for` with the job's id and token: a terminal
 * agent's, whose environment holds them) makes the connection the job's first. The wire is the
 * same. A connection lost (the daemon or the bridge restarting) is made again on the next call.
 */
export class ToolSession extends SessionOps {
  private connecting: Promise<net.Socket> | null = null;
  private current: net.Socket | null = null;
  private lines = new LineSplitter();
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly file: string,
    private readonly opening: { op: string; args: Record<string, unknown> } | null = null,
  ) {
    super();
  }

  /**
   * One call. Should roost (or the bridge) go away before it answers, the same request is sent
   * again on a new connection, for up to RIDE_OUT_MS, when it may be (ride-out.ts).
   */
  async call(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const deadline = Date.now() + RIDE_OUT_MS;
    for (let wait = 100; ; wait = Math.min(2000, wait * 2)) {
      try {
        return await this.write(await this.connect(), op, args);
      } catch (err) {
        if (!roostAway(err) || !mayResend(op, args) || Date.now() + wait > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  close(): void {
    this.current?.destroy();
  }

  private write(socket: net.Socket, op: string, args: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      socket.write(`${JSON.stringify({ id, op, args })}\n`);
    });
  }

  /** The connection, made (and opened) once; a failed opening fails the calls waiting on it. */
  private connect(): Promise<net.Socket> {
    this.connecting ??= this.open().catch((err) => {
      this.connecting = null;
      throw err;
    });
    return this.connecting;
  }

  private async open(): Promise<net.Socket> {
    const socket = net.connect(this.file);
    this.current = socket;
    this.lines = new LineSplitter();
    socket.on("data", (chunk: Buffer) => {
      this.lines.push(chunk);
      for (let line = this.lines.next(); line !== undefined; line = this.lines.next()) {
        const msg = JSON.parse(line) as {
          id?: number;
          ok: boolean;
          result?: unknown;
          code?: string;
          error?: string;
        };
        const w = msg.id === undefined ? undefined : this.waiting.get(msg.id);
        if (!w) continue; // not an answer of ours (a push on roost's socket)
        this.waiting.delete(msg.id!);
        if (msg.ok) w.resolve(msg.result);
        else w.reject(new AgentCallError(msg.code ?? "busy", msg.error ?? "refused"));
      }
    });
    socket.on("error", () => {}); // the close that follows says it
    socket.on("close", () => {
      if (this.current !== socket) return; // one let go already
      this.current = null;
      this.connecting = null;
      const lost = new AgentCallError(
        "disconnected",
        "the session's connection closed (roost, or its agent's bridge, ended or is starting again): try again",
      );
      for (const w of this.waiting.values()) w.reject(lost);
      this.waiting.clear();
    });
    if (this.opening) await this.write(socket, this.opening.op, this.opening.args);
    return socket;
  }
}
