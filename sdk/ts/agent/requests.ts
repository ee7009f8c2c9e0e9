/**
 * Requests on a connection to roost and their answers (docs/protocol.md, "The socket"): each a
 * numbered line, settled by the answer that carries its id, or by its timeout, or failed when the
 * connection is lost; the events among roost's lines are handed on. An error comes as an
 * `AgentCallError` carrying the wire's code.
 */
import type net from "node:net";
import { LineSplitter } from "../protocol/lines.js";

/** An error from the daemon (its wire `code`), or `disconnected` when the connection was lost meanwhile. */
export class AgentCallError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "AgentCallError";
    this.code = code;
  }
}

type Waiter = { resolve: (value: unknown) => void; reject: (err: Error) => void };

export class Requests {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private lines = new LineSplitter();

  constructor(private readonly log: (message: string) => void) {}

  /** A new connection: its lines start afresh (what the last one left half-read is dropped). */
  restart(): void {
    this.lines = new LineSplitter();
  }

  /** What roost sent: each answer settles its request, each event goes to `onEvent`. */
  read(chunk: Buffer, onEvent: (event: Record<string, unknown>) => void): void {
    this.lines.push(chunk);
    for (let line = this.lines.next(); line !== undefined; line = this.lines.next()) {
      if (!line.trim()) continue;
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(line) as Record<string, unknown>;
      } catch {
        this.log("a line from roost that is not JSON (ignored)");
        continue;
      }
      if (typeof msg.event === "string") onEvent(msg);
      else this.answer(msg);
    }
  }

  /** Writes the request on `socket`; resolves with the answer's result, or rejects (`timeout` after `timeoutMs`). */
  send(socket: net.Socket, op: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.waiting.delete(id))
          reject(new AgentCallError("timeout", `${op}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      const done =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          clearTimeout(timer);
          f(v);
        };
      this.waiting.set(id, { resolve: done(resolve), reject: done(reject) });
      socket.write(`${JSON.stringify({ id, op, args })}\n`);
    });
  }

  /** An answer settles the request it answers (one not waited for is dropped). */
  private answer(msg: Record<string, unknown>): void {
    const w = typeof msg.id === "number" ? this.waiting.get(msg.id) : undefined;
    if (!w) return;
    this.waiting.delete(msg.id as number);
    if (msg.ok === true) w.resolve(msg.result);
    else w.reject(new AgentCallError(String(msg.code ?? "bad_request"), String(msg.error ?? "refused")));
  }

  /** The connection is gone: every request still waiting fails with `err`. */
  failAll(err: AgentCallError): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
