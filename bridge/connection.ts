/**
 * One client on the unix socket, with every rule of the wire (docs/protocol.md, "The socket"):
 * answers in order, at most 256 requests in flight (the socket is not read meanwhile),
 * a line over 4 MiB ends the connection, a client that leaves 16 MiB unread is dropped.
 *
 * Two rules of its own the spec leaves open: no new request is taken while the client has not
 * yet read the answers already written (past the socket's high-water mark), so that a client
 * that asks for many large answers at once and reads them is never dropped for it, and one that
 * asks and never reads costs a bounded amount; and a client that closes its side after its last
 * request still gets every answer before the connection ends.
 */
import type net from "node:net";
import { LIMITS, type ResponseEnvelope, type WireEvent } from "../sdk/ts/protocol/index.js";
import { LineSplitter } from "../sdk/ts/protocol/lines.js";
import { encoded } from "../server/core/encoded.js";
import type { AgentConnection } from "../server/core/jobs/agents.js";
import { callerOf } from "../server/faces/caller.js";
import { OrderedAnswers } from "../server/faces/ordered-answers.js";
import { type RequestId, readRequest } from "../server/faces/request.js";
import type { Caller } from "../server/ops/define.js";
import { answerOf, type OpOutcome, outcomeOfThrown } from "../server/ops/outcome.js";

/** What a turn may gather before it is written at once (about a socket's high-water mark). */
const OUTBOX_FLUSH_BYTES = 64 * 1024;

export type RunOp = (caller: Caller, op: string, args: unknown) => OpOutcome | Promise<OpOutcome>;

export interface ConnectionOptions {
  maxLineBytes?: number;
  maxInFlight?: number;
  maxUnreadBytes?: number;
  /** A sandboxed job's own socket: its connections speak for that job alone (core/jobs/agents.ts). */
  boundTo?: string;
}

export class Connection {
  readonly state: AgentConnection;
  private readonly caller: Caller;
  private readonly lines: LineSplitter;
  /** The answers, in the requests' order; the places held are the requests in flight. */
  private readonly answers = new OrderedAnswers<ResponseEnvelope>((answer) => this.write(answer));
  private readonly cleanups: (() => void)[] = [];
  private readonly maxInFlight: number;
  private readonly maxUnread: number;
  private closed = false;
  /** Lines written this turn, sent together at its end. */
  private outbox: string[] = [];
  private outboxBytes = 0;
  private flushing = false;
  /** The client closed its side: no more requests; see `pump` for when the connection ends. */
  private readEnded = false;

  constructor(
    private readonly socket: net.Socket,
    private readonly run: RunOp,
    private readonly onClosed: (conn: Connection) => void,
    opts: ConnectionOptions = {},
  ) {
    this.lines = new LineSplitter(opts.maxLineBytes ?? LIMITS.lineBytes);
    this.maxInFlight = opts.maxInFlight ?? LIMITS.inFlight;
    this.maxUnread = opts.maxUnreadBytes ?? LIMITS.unreadBytes;
    this.state = {
      link: { send: (e) => this.send(e), end: () => this.endSoon() },
      session: false,
      jobId: null,
      boundTo: opts.boundTo ?? null,
      hello: null,
    };
    this.caller = callerOf({
      conn: this.state,
      push: (e) => this.send(e),
      onClose: (cleanup) => this.cleanups.push(cleanup),
    });
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("drain", () => this.pump());
    socket.on("end", () => {
      this.readEnded = true;
      this.pump();
    });
    socket.on("close", () => this.finish());
    socket.on("error", () => {}); // a reset by the peer is an ordinary end; "close" follows
  }

  send(event: WireEvent): void {
    this.write(event);
  }

  /** No request more is read; the connection ends once those already read are answered. */
  private endSoon(): void {
    if (this.closed || this.readEnded) return;
    this.readEnded = true;
    this.socket.pause();
    this.pump();
  }

  private receive(chunk: Buffer): void {
    if (!this.lines.push(chunk)) {
      // `limit`, as HTTP answers a body over the same bound (protocol.md, "Error codes").
      this.write({
        id: null,
        ok: false,
        code: "limit",
        error: `a line is over ${LIMITS.lineBytes} bytes: connection closed`,
      });
      this.flushOutbox();
      this.socket.end();
      this.socket.destroySoon?.();
      this.finish();
      return;
    }
    this.pump();
  }

  /**
   * Runs the waiting lines while fewer than the limit are in flight and the client keeps up with
   * its answers; pauses reading otherwise (resumed when an answer goes out or the socket drains).
   */
  private pump(): void {
    while (!this.closed && this.answers.held < this.maxInFlight && !this.socket.writableNeedDrain) {
      const line = this.lines.next();
      if (line === undefined) break;
      if (line.trim() !== "") this.handle(line);
    }
    if (this.closed) return;
    if (this.readEnded) {
      // No more requests will come (a client that closed its side and one that is gone look the
      // same here): end once every request taken is answered.
      if (this.answers.held === 0 && this.lines.waiting === 0) {
        this.flushOutbox();
        this.socket.end();
      }
      return;
    }
    if (this.answers.held >= this.maxInFlight || this.socket.writableNeedDrain) this.socket.pause();
    else if (this.socket.isPaused()) this.socket.resume();
  }

  private handle(line: string): void {
    const read = readRequest(line);
    if (!read.ok) {
      this.answers.send(envelopeOf(read.id, { ok: false, code: "bad_request", error: read.error }));
      return;
    }
    const { id, op, args } = read.request;
    let outcome: OpOutcome | Promise<OpOutcome>;
    try {
      outcome = this.run(this.caller, op, args);
    } catch (err) {
      outcome = outcomeOfThrown(err); // the op layer answers every failure; a throw is a bug, still answered
    }
    if (!(outcome instanceof Promise)) {
      this.answers.send(envelopeOf(id, outcome));
      return;
    }
    const answer = this.answers.hold();
    void outcome.then(
      (o) => {
        answer(envelopeOf(id, o));
        this.pump();
      },
      (err) => {
        // Never left in flight: the answers after it would wait forever.
        answer(envelopeOf(id, outcomeOfThrown(err)));
        this.pump();
      },
    );
  }

  private write(message: ResponseEnvelope | WireEvent): void {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    let text: string;
    try {
      text = encoded(message);
    } catch (err) {
      // A value JSON cannot say (nested too deep): the answer says so; an event is left out.
      if ("event" in message) {
        console.error("roost: an event could not be encoded:", err);
        return;
      }
      text = JSON.stringify(envelopeOf(message.id, outcomeOfThrown(err)));
    }
    // One write per turn of the event loop, not one per answer: each write is a system call
    // that wakes the reader, and a client that pipelines gets many answers in one turn.
    this.outbox.push(`${text}\n`);
    this.outboxBytes += text.length + 1;
    // A large turn goes out at once, so that the socket's backpressure (see `pump`) still holds.
    if (this.outboxBytes >= OUTBOX_FLUSH_BYTES) {
      this.flushOutbox();
      return;
    }
    if (!this.flushing) {
      this.flushing = true;
      process.nextTick(() => {
        this.flushing = false;
        this.flushOutbox();
      });
    }
  }

  private flushOutbox(): void {
    if (this.outbox.length === 0) return;
    const data = this.outbox.length === 1 ? this.outbox[0]! : this.outbox.join("");
    this.outbox = [];
    this.outboxBytes = 0;
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    this.socket.write(data);
    // A client that does not read is dropped before it costs the daemon more memory.
    if (this.socket.writableLength > this.maxUnread) {
      this.socket.destroy();
      this.finish();
    }
  }

  close(): void {
    this.socket.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.onClosed(this);
  }
}

const envelopeOf = (id: RequestId, outcome: OpOutcome): ResponseEnvelope => ({ id, ...answerOf(outcome) });
