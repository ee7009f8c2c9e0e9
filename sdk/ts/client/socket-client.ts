/**
 * A small JSON-lines client of the daemon's socket, for controllers (the CLI, scripts, tests):
 * requests matched to answers by id, events handed to a listener. Node builtins only.
 */
import net from "node:net";
import { isErrorCode, RoostError } from "../protocol/errors.js";
import type { OpArgs, OpName, OpResult, ResponseEnvelope, WireEvent } from "../protocol/index.js";
import { LineSplitter } from "../protocol/lines.js";

export class SocketClient {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** Unbounded: an answer (a `list` of many rows) may be longer than a request may. */
  private readonly lines = new LineSplitter();
  private closedError: Error | null = null;
  onEvent: (event: WireEvent) => void = () => {};
  onClose: () => void = () => {};

  private constructor(private readonly socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (err) => {
      this.closedError = err;
    });
    socket.on("close", () => {
      const err = Object.assign(
        new RoostError(
          "busy",
          `the connection to roost closed${this.closedError ? `: ${this.closedError.message}` : ""}`,
        ),
        { lost: true }, // roost went away before it answered (DaemonClient may send it again)
      );
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      this.onClose();
    });
  }

  static async connect(socketPath: string): Promise<SocketClient> {
    return new SocketClient(await connectSocket(socketPath));
  }

  /** One op; rejects with a RoostError carrying the wire's code. */
  call<K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K>>;
  call(op: string, args?: Record<string, unknown>): Promise<unknown>;
  call(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed) {
        reject(new RoostError("busy", "the connection to roost is closed"));
        return;
      }
      this.waiting.set(id, { resolve, reject });
      this.socket.write(`${JSON.stringify({ id, op, args })}\n`);
    });
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.lines.push(chunk);
    for (let line = this.lines.next(); line !== undefined; line = this.lines.next())
      if (line.trim()) this.message(JSON.parse(line) as ResponseEnvelope | WireEvent);
  }

  private message(msg: ResponseEnvelope | WireEvent): void {
    if ("event" in msg) {
      this.onEvent(msg);
      return;
    }
    const w = typeof msg.id === "number" ? this.waiting.get(msg.id) : undefined;
    if (!w) return;
    this.waiting.delete(msg.id as number);
    if (msg.ok) w.resolve(msg.result);
    else w.reject(new RoostError(isErrorCode(msg.code) ? msg.code : "bad_request", msg.error));
  }
}

/** A connection to a unix socket, once it is made; rejects with the error that stopped it. */
export function connectSocket(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/** Whether something accepts connections on the socket (no op sent): is roost running there? */
export function socketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(socketPath);
    sock.once("connect", () => {
      sock.destroy();
      resolve(true);
    });
    sock.once("error", () => resolve(false));
  });
}
