// One client of the pty host (the daemon, or a daemon that is going away): JSON lines in, JSON lines
// out, strictly in order. An answer that takes a moment (a screen waits for its parse) holds a place
// in that order: what is sent after its request waits behind it, so that, on this connection, an
// attach answer comes after every output event its snapshot holds and before every one it does not.
import type * as net from "node:net";
import { LineSplitter } from "../../sdk/ts/protocol/lines.js";
import { OrderedAnswers } from "../faces/ordered-answers.js";
import type { HostMessage } from "./wire.js";

/** Bytes of one request line; the daemon's are far shorter (a spawn spec, typed keys). */
const MAX_LINE = 16 * 1024 * 1024;
const MAX_BACKLOG = 32 * 1024 * 1024; // a client this far behind is not reading; drop it

export class Conn {
  /** Jobs whose output events this connection gets. */
  readonly attached = new Set<string>();
  /** Events, too, go in this order: after the answers held before them. */
  private readonly order = new OrderedAnswers<HostMessage>((msg) => this.write(msg));

  constructor(
    readonly sock: net.Socket,
    private readonly log: (msg: string) => void,
  ) {}

  /** Calls `onLine` for each line the client sends. */
  read(onLine: (line: string) => void): void {
    const lines = new LineSplitter(MAX_LINE);
    this.sock.on("data", (chunk: Buffer) => {
      const whole = lines.push(chunk);
      for (let line = lines.next(); line !== undefined; line = lines.next()) onLine(line);
      if (!whole) this.send({ id: null, ok: false, error: "bad request: line too long" });
    });
  }

  /** Sends now, or after the answers still being worked out. */
  send(msg: HostMessage): void {
    this.order.send(msg);
  }

  /** Holds a place for an answer: what is sent meanwhile goes after it. Fill it once. */
  hold(): (msg: HostMessage) => void {
    return this.order.hold();
  }

  private write(msg: HostMessage): void {
    const { sock } = this;
    if (sock.destroyed) return;
    if (sock.writableLength > MAX_BACKLOG) {
      this.log("dropping a client that stopped reading");
      sock.destroy();
      return;
    }
    sock.write(`${JSON.stringify(msg)}\n`);
  }
}
