/**
 * The HTTP face's connections, bounded so that no one without a token can starve the daemon
 * (docs/http.md, "Connections"). Each connection is a descriptor, and the socket's 1024
 * connections, the store and the pty host need theirs: HTTP gets what is left of the limit, and
 * a connection counts as unproven until a request on it passes the token check (auth.ts).
 *
 * Unproven connections are few (`caps.unproven`) and short-lived: one that sends nothing for
 * IDLE_MS, or has not made a whole request with a good token PROOF_MS after it connected, is
 * closed; so is one whose request was refused for its token. When they are all taken, a new one
 * closes the oldest rather than being refused: refusing would let a flood hold every place, once
 * taken, for as long as the timeouts allow, and the owner's new connection would find none. The
 * owner's client sends its request as soon as it connects, so its connection is the newest, and
 * proves itself long before `caps.unproven` more arrive; a flood has to keep opening connections
 * as fast as they are closed to get in its way, and still holds no more than the cap.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { LimitNote } from "./limit-note.js";

/**
 * Descriptors kept beside the socket's connections: the store's three files, the log, the pty
 * host's connection, node's own (an idle daemon holds about 32 in all), files served or read,
 * the socket's refused clients during their grace, a child started now and then.
 */
export const KEPT_BESIDES_SOCKET = 256;
/**
 * Unproven connections at most, however high the limit: each holds memory too (about 17 KB held
 * idle). Enough that the owner's new connection is read before a flood can push it out: a turn of
 * the event loop accepts about a listen queue's worth (511) of connections.
 */
export const MOST_UNPROVEN = 2048;
/** An unproven connection that sends nothing for this long is closed. */
export const IDLE_MS = 5_000;
/** An unproven connection still unproven this long after it connected is closed (a slow sender's too). */
export const PROOF_MS = 10_000;
/** How often the unproven are looked at for PROOF_MS: a second late at most. */
const SWEEP_MS = 1_000;

export interface ConnectionCaps {
  /** The soft limit on descriptors, these caps' ground. */
  descriptors: number;
  /** Descriptors HTTP may never take. */
  kept: number;
  /** HTTP connections at most (the server's maxConnections): past it a new one is closed at once. */
  all: number;
  /** Connections at most that have not yet passed the token check. */
  unproven: number;
}

/**
 * HTTP gets what the socket's connections and the rest leave, or a quarter of the limit when that
 * is more (a limit too low for both: the hub still opens, and the daemon says so). At most half
 * of HTTP's may be unproven: a flood never takes the places of connections that proved themselves.
 */
export function capsFor(descriptors: number): ConnectionCaps {
  const d = Math.min(descriptors, 1 << 20); // Linux's own ceiling: "unlimited" is no number to share
  const all = Math.max(d - LIMITS.connections - KEPT_BESIDES_SOCKET, Math.floor(d / 4), 2);
  return { descriptors: d, kept: d - all, all, unproven: Math.min(MOST_UNPROVEN, Math.floor(all / 2)) };
}

/** The HTTP server's connections, watched from its `connection` event. */
export class Connections {
  /** Unproven sockets and when each connected, oldest first (a Map keeps insertion order). */
  private readonly unproven = new Map<Socket, number>();
  private readonly proven = new WeakSet<Socket>();
  private sweeper: NodeJS.Timeout | null = null;
  private readonly evictions: LimitNote;
  private readonly drops: LimitNote;

  constructor(
    private readonly server: Server,
    readonly caps: ConnectionCaps,
  ) {
    this.evictions = new LimitNote(
      `${caps.unproven} connections without a request with a token yet: each new one closes the oldest`,
    );
    this.drops = new LimitNote(`${caps.all} HTTP connections: new ones are closed at once`);
    server.maxConnections = caps.all;
    server.on("connection", (socket: Socket) => this.admit(socket));
    server.on("drop", () => this.drops.hit());
    server.on("listening", () => this.start());
    server.on("close", () => this.stop());
  }

  /** A request on this socket passed the token check: no longer bounded as unproven. */
  prove(socket: Socket): void {
    if (!this.unproven.delete(socket)) return;
    this.proven.add(socket);
    // The server's own timeout again (none unless set): a WebSocket upgraded from here lives long.
    socket.setTimeout(this.server.timeout);
  }

  isProven(socket: Socket): boolean {
    return this.proven.has(socket);
  }

  private admit(socket: Socket): void {
    if (this.unproven.size >= this.caps.unproven) this.closeOldest();
    this.unproven.set(socket, Date.now());
    socket.setTimeout(IDLE_MS);
    socket.on("timeout", () => {
      if (this.unproven.delete(socket)) socket.destroy();
    });
    socket.once("close", () => this.unproven.delete(socket));
  }

  private closeOldest(): void {
    const oldest = this.unproven.keys().next().value;
    if (!oldest) return;
    this.unproven.delete(oldest);
    oldest.destroy();
    this.evictions.hit();
  }

  /** Closes the unproven that connected PROOF_MS ago or more: the oldest first, then stops. */
  private sweep(): void {
    const connectedBefore = Date.now() - PROOF_MS;
    for (const [socket, at] of this.unproven) {
      if (at > connectedBefore) return;
      this.unproven.delete(socket);
      socket.destroy();
    }
  }

  private start(): void {
    const { all, unproven, descriptors, kept } = this.caps;
    console.log(
      `  http: at most ${all} connections, ${unproven} of them before a request with a token ` +
        `(of ${descriptors} descriptors, ${kept} are kept for the socket, the store and the pty host)`,
    );
    const needed = LIMITS.connections + KEPT_BESIDES_SOCKET;
    if (kept < needed)
      console.error(
        `roost: the descriptor limit (${descriptors}) is too low for the socket's ${LIMITS.connections} ` +
          `connections beside HTTP's: raise it (ulimit -n) to ${Math.ceil((needed * 4) / 3)} or more`,
      );
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  private stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.evictions.stop();
    this.drops.stop();
  }
}

/**
 * Watches the app's connections with caps from the descriptor limit, and closes a connection
 * after answering a request refused for its token (401), or refused before it (403) on a
 * connection that never proved itself: a client refused once has nothing to keep it open for.
 */
export function watchConnections(app: FastifyInstance, caps: ConnectionCaps): Connections {
  const connections = new Connections(app.server, caps);
  app.addHook("onSend", (req, reply, payload, done) => {
    const status = reply.statusCode;
    if (status === 401 || (status === 403 && !connections.isProven(req.raw.socket)))
      reply.header("connection", "close");
    done(null, payload);
  });
  return connections;
}
