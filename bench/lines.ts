/**
 * A JSON-lines client on raw sockets (no roost client in between: requests written as they are,
 * answers read with the protocol's line splitter): requests matched to answers by id, events
 * handed to a listener. For setup and for the scenarios whose rates are modest; the
 * report-throughput scenario drives its sockets itself, without parsing.
 */
import type net from "node:net";
import { performance } from "node:perf_hooks";
import { connectSocket } from "../sdk/ts/client/socket-client.js";
import { onMessages, type Response } from "../test/helpers/raw-client.js";

/** An answer as it came: `{id, ok, result}` or `{id, ok, error, code}`. */
export type Answer = Response;

export class Conn {
  onEvent: (event: any) => void = () => {};
  private nextId = 1;
  private readonly waiting = new Map<number, (a: Answer) => void>();
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    onMessages(socket, {
      onEvent: (event) => this.onEvent(event),
      onAnswer: (answer) => this.answered(answer),
    });
    this.closed = new Promise((resolve) =>
      socket.on("close", () => {
        const gone: Answer = { id: null, ok: false, code: "closed", error: "the connection closed" };
        for (const w of this.waiting.values()) w(gone);
        this.waiting.clear();
        resolve();
      }),
    );
  }

  static async connect(path: string): Promise<Conn> {
    return new Conn(await connectSocket(path));
  }

  /** Sends a request; resolves with its answer (never rejects: a closed connection is an answer too). */
  request(op: string, args?: unknown): Promise<Answer> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(`${JSON.stringify({ id, op, args })}\n`);
    });
  }

  /** `request`, expecting success: the result. */
  async ok(op: string, args?: unknown): Promise<any> {
    const a = await this.request(op, args);
    if (!a.ok) throw new Error(`${op} failed: ${a.code}: ${a.error}`);
    return a.result;
  }

  /** How many requests wait for their answer. */
  get inFlight(): number {
    return this.waiting.size;
  }

  close(): void {
    this.socket.destroy();
  }

  private answered(a: Answer): void {
    const w = typeof a.id === "number" ? this.waiting.get(a.id) : undefined;
    if (!w) return;
    this.waiting.delete(a.id as number);
    w(a);
  }
}

/**
 * Connects as soon as the socket accepts, polling every 2 ms; `failed` says why to give up early
 * (the process exited). The connection is the first one the server accepted.
 */
export async function connectWhenReady(
  path: string,
  ms: number,
  failed: () => string | null = () => null,
): Promise<Conn> {
  const deadline = performance.now() + ms;
  for (;;) {
    try {
      return await Conn.connect(path);
    } catch {
      const why = failed();
      if (why) throw new Error(why);
      if (performance.now() > deadline) throw new Error(`nothing answered on ${path} within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}
