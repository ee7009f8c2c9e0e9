/**
 * A lean HTTP/1.1 client for the daemon's HTTP face: `POST /api/<op>` with the owner's token, on
 * a fixed number of keep-alive connections, one request at a time on each (no pipelining);
 * requests beyond them wait in a queue, as a browser's or undici's pool holds them.
 *
 * Written on raw sockets, as load generators are (wrk, autocannon): a request is one string, an
 * answer is read by its Content-Length. node:http's client spent 100–170 µs of CPU a request here,
 * three times the socket client's, on the same two cores as the daemon it measures
 * (docs/benchmarks.md, `replies-http`).
 */
import net from "node:net";
import type { Answer } from "./lines.js";

interface Pending {
  text: string;
  resolve: (a: Answer) => void;
}

const HEAD_END = Buffer.from("\r\n\r\n");

/** One keep-alive connection: a request written, its answer read, then the next. */
class Connection {
  private buf: Buffer = Buffer.alloc(0);
  private current: Pending | null = null;
  closed = false;

  constructor(
    readonly socket: net.Socket,
    private readonly done: (c: Connection) => void,
    private readonly gone: (c: Connection) => void,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closed = true;
      this.current?.resolve({ id: null, ok: false, code: "http", error: "the connection closed" });
      this.current = null;
      this.gone(this);
    });
  }

  send(p: Pending): void {
    this.current = p;
    this.socket.write(p.text);
  }

  private receive(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const end = this.buf.indexOf(HEAD_END);
    if (end < 0) return;
    const head = this.buf.subarray(0, end).toString("latin1");
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) {
      this.fail(`an answer without a Content-Length: ${head.slice(0, 200)}`);
      return;
    }
    const bodyEnd = end + 4 + Number(length[1]);
    if (this.buf.length < bodyEnd) return;
    const text = this.buf.subarray(end + 4, bodyEnd).toString("utf8");
    this.buf = this.buf.subarray(bodyEnd);
    const p = this.current!;
    this.current = null;
    try {
      p.resolve({ id: null, ...(JSON.parse(text) as Omit<Answer, "id">) });
    } catch {
      p.resolve({ id: null, ok: false, code: `http ${head.slice(9, 12)}`, error: text.slice(0, 200) });
    }
    if (/\r\nconnection:\s*close/i.test(head)) this.socket.destroy();
    else this.done(this);
  }

  private fail(error: string): void {
    this.current?.resolve({ id: null, ok: false, code: "http", error });
    this.current = null;
    this.socket.destroy();
  }
}

export class HttpHub {
  private readonly host: string;
  private readonly port: number;
  private readonly idle: Connection[] = [];
  private readonly queue: Pending[] = [];
  private readonly open = new Set<Connection>();
  /** Connections opened: keep-alive keeps it at `sockets`. */
  connectionsMade = 0;

  constructor(
    url: string,
    private readonly token: string,
    readonly sockets = 16,
  ) {
    const u = new URL(url);
    this.host = u.hostname;
    this.port = Number(u.port);
  }

  /** `POST /api/<op>` with the args as its JSON body; resolves with the answer (never rejects). */
  request(op: string, args: unknown): Promise<Answer> {
    const body = JSON.stringify(args);
    const text =
      `POST /api/${op} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n` +
      `Authorization: Bearer ${this.token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    return new Promise((resolve) => {
      this.queue.push({ text, resolve });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let c = this.idle.pop();
      while (c?.closed) c = this.idle.pop();
      if (!c) {
        if (this.open.size >= this.sockets) return;
        c = this.connect();
      }
      c.send(this.queue.shift()!);
    }
  }

  private connect(): Connection {
    this.connectionsMade++;
    const c = new Connection(
      net.connect(this.port, this.host),
      (done) => {
        this.idle.push(done);
        this.pump();
      },
      (gone) => {
        this.open.delete(gone);
        this.pump();
      },
    );
    this.open.add(c);
    return c;
  }

  close(): void {
    for (const c of this.open) c.socket.destroy();
  }
}
