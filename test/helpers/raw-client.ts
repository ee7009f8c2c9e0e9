/**
 * A raw socket client for tests: writes bytes and lines as they are, reads every line the daemon
 * sends (with the protocol's line splitter, test/unit/protocol/lines.test.ts), answers matched by id.
 * No roost client in between.
 */
import type net from "node:net";
import { connectSocket } from "../../sdk/ts/client/socket-client.js";
import { LineSplitter } from "../../sdk/ts/protocol/lines.js";
import { arrival } from "./processes.js";

export interface Response {
  id: unknown;
  ok: boolean;
  result?: any;
  error?: string;
  code?: string;
}

/**
 * Reads every JSON line the daemon sends on `socket` (with the protocol's line splitter): events
 * (`{"event": ...}`) to `onEvent`, answers to `onAnswer`, then `afterChunk` once per chunk read.
 */
export function onMessages(
  socket: net.Socket,
  handlers: { onEvent: (event: any) => void; onAnswer: (answer: Response) => void; afterChunk?: () => void },
): void {
  const lines = new LineSplitter();
  socket.on("data", (chunk: Buffer) => {
    lines.push(chunk);
    for (let line = lines.next(); line !== undefined; line = lines.next()) {
      const msg = JSON.parse(line);
      if ("event" in msg) handlers.onEvent(msg);
      else handlers.onAnswer(msg as Response);
    }
    handlers.afterChunk?.();
  });
  socket.on("error", () => {});
}

export class RawClient {
  readonly responses: Response[] = [];
  readonly events: any[] = [];
  private nextId = 1;
  private readonly waiters: (() => void)[] = [];
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    onMessages(socket, {
      onEvent: (event) => this.events.push(event),
      onAnswer: (answer) => this.responses.push(answer),
      afterChunk: () => {
        for (const w of this.waiters.splice(0)) w();
      },
    });
    this.closed = new Promise((resolve) => socket.on("close", () => resolve()));
  }

  static async connect(path: string): Promise<RawClient> {
    return new RawClient(await connectSocket(path));
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  /** Writes raw text (add the newline yourself). */
  write(text: string | Buffer): void {
    this.socket.write(text);
  }

  /** Sends a request and waits for the answer with its id. */
  async request(op: string, args?: unknown, timeoutMs = 15000): Promise<Response> {
    const id = this.nextId++;
    this.write(`${JSON.stringify({ id, op, args })}\n`);
    return this.waitFor(
      () => this.responses.find((r) => r.id === id),
      `the answer to ${op} #${id}`,
      timeoutMs,
    );
  }

  /** `request`, expecting success: the result. */
  async ok(op: string, args?: unknown): Promise<any> {
    const r = await this.request(op, args);
    if (!r.ok) throw new Error(`${op} failed: ${r.code}: ${r.error}`);
    return r.result;
  }

  /** Waits until `pick` finds something among what arrived. */
  waitFor<T>(pick: () => T | undefined, what: string, timeoutMs = 15000): Promise<T> {
    return arrival(pick, what, timeoutMs, {
      gone: () => (this.socket.destroyed ? "connection closed" : null),
      // Woken by the next line that arrives, else after 100 ms.
      pause: (left) =>
        new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 100));
          this.waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        }),
    });
  }

  event(pred: (e: any) => boolean, what = "an event", timeoutMs = 15000): Promise<any> {
    return this.waitFor(() => this.events.find(pred), what, timeoutMs);
  }

  close(): void {
    this.socket.destroy();
  }
}
