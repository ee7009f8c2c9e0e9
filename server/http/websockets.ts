/**
 * The WebSockets (docs/http.md, "The WebSockets"): `GET /api/subscribe` carries the same
 * pushes as `subscribe` on the socket; `GET /api/jobs/<id>/terminal` is a job's live terminal.
 *
 * Each first sends the op's answer (`{ok: true, result}`, or `{ok: false, error, code}` and a
 * close), then the events as the socket has them, one JSON text message each. A client that
 * leaves more than the socket's unread limit (16 MiB) unsent is dropped: its pushes are never
 * held for long, and never slow the others'.
 */
import type { Duplex } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { WebSocket } from "ws";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import type { Core } from "../core/core.js";
import { encoded } from "../core/encoded.js";
import { callerOf } from "../faces/caller.js";
import { OrderedAnswers } from "../faces/ordered-answers.js";
import { readRequest } from "../faces/request.js";
import { answerOf, type OpOutcome, runOp } from "../ops/index.js";
import { sendError } from "./answers.js";
import { identityOf, pathOf, tokenOf } from "./auth.js";

/** Close codes: 1000 normal (the job ended, or the op was refused), 1008 too slow or bad input. */
const CLOSE_NORMAL = 1000;
const CLOSE_POLICY = 1008;

/** One WebSocket as a push target: JSON out, dropped past the unread limit, cleanups on close. */
class Channel {
  private readonly cleanups: (() => void)[] = [];
  private closed = false;
  private corked = false;

  constructor(
    readonly ws: WebSocket,
    private readonly maxUnread: number,
  ) {
    ws.on("close", () => this.finish());
    ws.on("error", () => this.finish());
  }

  send(message: object): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.corkForThisTurn();
    this.ws.send(encoded(message));
    if (this.ws.bufferedAmount > this.maxUnread) {
      this.ws.terminate(); // it reads nothing: a close frame would wait behind the rest
      this.finish();
    }
  }

  /**
   * All of one turn's messages in one write: a push to 100 subscribers of a busy daemon was one
   * system call per message each, most of the daemon's time (ws writes each frame at once).
   */
  private corkForThisTurn(): void {
    if (this.corked) return;
    const socket = (this.ws as unknown as { _socket?: Duplex })._socket; // ws's own socket
    if (!socket) return;
    this.corked = true;
    socket.cork();
    process.nextTick(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  onClose(cleanup: () => void): void {
    if (this.closed) cleanup();
    else this.cleanups.push(cleanup);
  }

  close(code: number, why: string): void {
    if (!this.closed) this.ws.close(code, closeReason(why));
  }

  /**
   * Ended now, not after the closing handshake (a client that never answers the close frame would
   * keep it up to 30 s): nothing more goes out or comes in; the close frame leaves with this
   * turn's writes, then the connection is cut.
   */
  cut(code: number, why: string): void {
    if (this.closed) return;
    this.ws.close(code, closeReason(why));
    this.finish();
    setImmediate(() => this.ws.terminate());
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }
}

const SUBSCRIBE_ROUTE = "/api/subscribe";
const TERMINAL_ROUTE = "/api/jobs/:id/terminal";
const WEBSOCKET_ROUTES = new Set([SUBSCRIBE_ROUTE, TERMINAL_ROUTE]);
const STREAM_PATHS = "GET /api/subscribe and GET /api/jobs/ID/terminal";

/** A plain GET on a WebSocket route: say what it is. */
const needsUpgrade = (_req: FastifyRequest, reply: FastifyReply) =>
  sendError(reply, "bad_request", "this is a WebSocket: connect with Upgrade: websocket");

export function installWebSockets(app: FastifyInstance, core: Core, maxUnread = LIMITS.unreadBytes): void {
  const channels = new TokenChannels(app, core, maxUnread);
  // An upgrade anywhere else is refused as HTTP, before the WebSocket plugin would take it
  // (it upgrades any route, then closes at once without a word).
  app.addHook("onRequest", (req, reply, done) => {
    if (
      req.headers.upgrade?.toLowerCase() !== "websocket" ||
      WEBSOCKET_ROUTES.has(req.routeOptions.url ?? "")
    )
      return done();
    sendError(reply, "not_found", `no WebSocket at ${pathOf(req.url)}: the WebSockets are ${STREAM_PATHS}`);
  });
  app.route({
    method: "GET",
    url: SUBSCRIBE_ROUTE,
    handler: needsUpgrade,
    wsHandler: (ws, req) => subscribeSocket(core, req, channels.open(req, ws)),
  });
  app.route<{ Params: { id: string } }>({
    method: "GET",
    url: TERMINAL_ROUTE,
    handler: needsUpgrade,
    wsHandler: (ws, req) => terminalSocket(core, req, channels.open(req, ws)),
  });
}

/** The open WebSockets of each named token: a revoked token's end at once, not at their next request. */
class TokenChannels {
  private readonly byToken = new Map<string, Set<Channel>>();

  constructor(
    app: FastifyInstance,
    private readonly core: Core,
    private readonly maxUnread: number,
  ) {
    const stopListening = core.tokens.onRevoke((name) => {
      for (const channel of this.byToken.get(name) ?? []) channel.cut(CLOSE_POLICY, "the token was revoked");
    });
    app.addHook("onClose", (_app, done) => {
      stopListening();
      done();
    });
  }

  /** A WebSocket just opened, as a channel counted under its token (until it closes). */
  open(req: FastifyRequest, ws: WebSocket): Channel {
    const channel = new Channel(ws, this.maxUnread);
    const identity = identityOf(req);
    // Revoked between the token's check and now: no listener above would ever hear of it.
    if (!this.core.tokens.holds(identity)) channel.cut(CLOSE_POLICY, "the token was revoked");
    const name = identity.name;
    if (name !== null) {
      const set = this.byToken.get(name) ?? new Set();
      this.byToken.set(name, set.add(channel));
      channel.onClose(() => {
        set.delete(channel);
        if (set.size === 0 && this.byToken.get(name) === set) this.byToken.delete(name);
      });
    }
    return channel;
  }
}

/** `GET /api/subscribe`: the `subscribe` op's answer, then its pushes; nothing is read. */
function subscribeSocket(core: Core, req: FastifyRequest, channel: Channel): void {
  const caller = callerOf({
    token: tokenOf(req, core.tokens),
    push: (e) => channel.send(e),
    onClose: (c) => channel.onClose(c),
  });
  // subscribe answers at once: its rows go out before any push made after them
  const outcome = runOp(core, caller, "subscribe", {}) as OpOutcome;
  channel.send(answerOf(outcome));
  if (!outcome.ok) channel.close(CLOSE_NORMAL, outcome.error);
  channel.ws.on("message", () =>
    channel.close(CLOSE_POLICY, "this WebSocket only carries pushes: act with POST /api/<op>"),
  );
}

/** `GET /api/jobs/<id>/terminal`: the `attach` op's answer, the job's output; input and resizes read. */
function terminalSocket(core: Core, req: FastifyRequest, channel: Channel): void {
  const id = (req.params as { id: string }).id;
  const caller = callerOf({
    token: tokenOf(req, core.tokens),
    push: (e) => {
      channel.send(e);
      if (e.event === "detached") channel.close(CLOSE_NORMAL, `detached: ${e.why}`);
    },
    onClose: (c) => channel.onClose(c),
  });
  // Input waits until the screen has gone out: typed keys answer what the viewer sees.
  const attached = Promise.resolve(runOp(core, caller, "attach", { id })).then((outcome) => {
    channel.send(answerOf(outcome));
    if (!outcome.ok) channel.close(CLOSE_NORMAL, outcome.error);
    return outcome.ok;
  });
  // Only refusals are answered (a viewer types fast, and "done" for every key is noise): the
  // answer to a message is its refusal, or null.
  const refusal = async (data: unknown, isBinary: boolean): Promise<object | null> => {
    const request = terminalRequest(isBinary ? null : String(data));
    if (typeof request === "string") return { ok: false, code: "bad_request", error: request };
    const outcome = await runOp(core, caller, request.op, { ...request.args, id });
    if (request.op === "attach") {
      // The screen afresh, sent now: the output it has not drawn follows it (viewers.ts).
      channel.send({ op: "attach", ...answerOf(outcome) });
      return null;
    }
    return outcome.ok ? null : { op: request.op, ...answerOf(outcome) };
  };
  readInOrder(channel, attached, refusal);
}

/**
 * As on the socket: each message runs in the order sent, once `first` has settled (keys reach the
 * terminal as they were typed), and its answer comes in that order. A client that sends faster
 * than the terminal takes is not read until it catches up.
 */
function readInOrder(
  channel: Channel,
  first: Promise<boolean>,
  answerTo: (data: unknown, isBinary: boolean) => Promise<object | null>,
): void {
  const ws = channel.ws;
  const answers = new OrderedAnswers<object | null>((answer) => {
    if (answer) channel.send(answer);
  });
  ws.on("message", (data, isBinary) => {
    const answer = answers.hold();
    if (answers.held >= LIMITS.inFlight) ws.pause();
    void first.then(async (ok) => {
      answer(ok ? await answerTo(data, isBinary) : null);
      if (answers.held < LIMITS.inFlight / 2 && ws.isPaused) ws.resume();
    });
  });
}

/**
 * `{"op": "input", "args": {"data": "ls\r"}}`, `{"op": "resize", "args": {"cols": 100, "rows": 30}}`,
 * or `{"op": "attach"}`: the screen again (the hub's, once a resize has settled).
 */
function terminalRequest(
  text: string | null,
): { op: "input" | "resize" | "attach"; args: Record<string, unknown> } | string {
  const usage =
    'send {"op": "input", "args": {"data": "…"}}, {"op": "resize", "args": {"cols": n, "rows": n}} or {"op": "attach"}';
  if (text === null) return `binary messages are not read: ${usage}`;
  const read = readRequest(text);
  if (!read.ok) return read.why === "json" ? `not JSON: ${usage}` : usage;
  const { op, args } = read.request;
  if (op === "attach") return { op, args: {} };
  if ((op !== "input" && op !== "resize") || args === undefined) return usage;
  return { op, args };
}

/** A close frame's reason is at most 123 bytes of UTF-8. */
function closeReason(why: string): string {
  let reason = why;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}
