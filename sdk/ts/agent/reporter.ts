/**
 * `Reporter`: an agent's connection to roost (docs/protocol.md, "Clients"). It finds the job in
 * the environment, connects on the first report, says `hello` on every connection and then sends
 * the latest report, reconnects with backoff and jitter, coalesces reports, keeps every field
 * within the protocol's limits, and carries any other op (`call`, and the session's ops of
 * session-ops.ts) on the job's connection. A process roost did not start `register`s first.
 *
 * Its parts: the job from the environment (job-env.ts), the report fitted to the limits
 * (report-fit.ts), requests and their answers on the connection (requests.ts).
 *
 * Node builtins only: the protocol's schema set is imported for its TYPES alone (they vanish in
 * the build), its numbers from protocol/limits and its line splitter from protocol/lines (in
 * requests.ts), each of which imports nothing (a test checks all three).
 */
import { randomUUID } from "node:crypto";
import net from "node:net";
import type { AgentInfo, DeliverEvent, OpResult, Report } from "../protocol/index.js";
import type { JobEnv } from "./job-env.js";
import { type AgentReport, fitReport, urgent } from "./report-fit.js";
import { AgentCallError, Requests } from "./requests.js";
import { mayResend } from "./ride-out.js";
import { type RegisterArgs, SessionOps } from "./session-ops.js";

export interface ReporterOptions {
  job: JobEnv;
  agent: AgentInfo;
  /** Said in `hello`; "report" is always among them. */
  capabilities?: string[];
  /** Each `deliver` event, as it comes (every one, sent again ones too). */
  onDeliver?: (event: DeliverEvent) => void;
  /** A foreground session: each time `peer_register` answered (on every connection), with the job it now is. */
  onRegistered?: (job: JobEnv) => void;
  /** Where the client says what went wrong (default: stderr). */
  log?: (message: string) => void;
  /** The row text is sent at most this often (default 2000 ms); a change of state goes at once. */
  coalesceMs?: number;
  /** Reconnect backoff: from `min` doubling to `max`, each ± `jitter` (default 100, 5000, 0.2). */
  backoff?: { min?: number; max?: number; jitter?: number };
}

export interface CallOptions {
  /** How long to wait for a connection and the answer (default 30 s); then `timeout`. */
  timeoutMs?: number;
}

/** What the daemon said to `hello` (null before it answered, or when it is older than `hello`). */
export interface DaemonHello {
  protocol: number;
  daemon: { name: string; version: string };
  capabilities: string[];
}

export class Reporter extends SessionOps {
  readonly job: JobEnv;
  /** What the daemon answered to the last `hello`. */
  daemon: DaemonHello | null = null;
  private readonly agent: AgentInfo;
  private readonly capabilities: string[];
  private readonly onDeliver: (event: DeliverEvent) => void;
  private readonly onRegistered: (job: JobEnv) => void;
  private readonly log: (message: string) => void;
  private readonly coalesceMs: number;
  private readonly backoff: { min: number; max: number; jitter: number };

  private socket: net.Socket | null = null;
  /** The socket is up: requests may be written on it. */
  private open = false;
  /** From the socket's start until `connected` (a foreground session registers meanwhile). */
  private connecting = false;
  /** Ready: hello and the latest report written (after `peer_register`'s answer, for a foreground session). */
  private connected = false;
  private closed = false;
  /** The daemon said the token is not this job's (or the job ended): stop speaking for it. */
  private refused = false;
  private delay: number;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly requests: Requests;
  private readonly connectWaiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  /** A foreground session's `peer_register` args, said first on every connection (`register`). */
  private registration: RegisterArgs | null = null;
  /** Deliveries that came before `peer_register`'s answer (what waited for the session): handed on after it. */
  private held: DeliverEvent[] | null = null;

  private latest: Required<Report> | null = null;
  private sent: Required<Report> | null = null;
  private sentAt = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private lastReport: Promise<unknown> = Promise.resolve();

  constructor(opts: ReporterOptions) {
    super();
    this.job = opts.job;
    this.agent = opts.agent;
    this.capabilities = [...new Set(["report", ...(opts.capabilities ?? [])])];
    this.onDeliver = opts.onDeliver ?? (() => {});
    this.onRegistered = opts.onRegistered ?? (() => {});
    this.log = opts.log ?? ((m) => process.stderr.write(`roost-agent: ${m}\n`));
    this.requests = new Requests(this.log);
    this.coalesceMs = opts.coalesceMs ?? 2000;
    this.backoff = { min: 100, max: 5000, jitter: 0.2, ...opts.backoff };
    this.delay = this.backoff.min;
  }

  /** Whether a connection is up (hello and the latest report written on it). */
  get isConnected(): boolean {
    return this.connected;
  }

  /**
   * A new state of the agent: a full snapshot (what is left out is null), fitted to the limits.
   * A change of `state`, `waitingFor` or `question` goes at once; the rest at most every 2 s, the
   * latest always sent in the end. The first report makes the connection.
   */
  report(report: AgentReport): void {
    if (this.closed) return;
    this.latest = fitReport(report);
    if (!this.connected) {
      this.connect();
      return; // the latest goes on the connection, right after hello
    }
    this.schedule();
  }

  /**
   * Any op on the job's connection; rejects with an `AgentCallError` carrying the wire's code. Should
   * roost go away before it answers (a restart), the same request is sent again once the connection
   * is back, within `timeoutMs`, when it may be (ride-out.ts: one with a `requestId`, or the same
   * done twice): the caller sees roost's answer, not `disconnected`.
   */
  async call(op: string, args: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<unknown> {
    const timeoutMs = opts.timeoutMs ?? 30000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.closed) throw new AgentCallError("disconnected", "the reporter is closed");
      if (this.refused)
        throw new AgentCallError("unauthorized", `roost no longer takes job ${this.job.id}'s token`);
      if (!this.connected) {
        if (!this.registration && !(this.latest && this.job.id))
          throw new AgentCallError(
            "disconnected",
            this.job.id
              ? "report first: a connection starts with a report"
              : "register first: a session roost did not start has no job until then",
          );
        await this.whenConnected(Math.max(1, deadline - Date.now()));
      }
      try {
        return await this.request(op, args, Math.max(1, deadline - Date.now()));
      } catch (err) {
        const lost = err instanceof AgentCallError && err.code === "disconnected";
        if (!lost || this.closed || !mayResend(op, args) || Date.now() >= deadline) throw err;
        // roost went away before it answered: the same request again, once it is back.
      }
    }
  }

  /**
   * A foreground session (a process roost did not start: no job in the environment) becomes one
   * with a row: `peer_register` on the connection, said again first on every connection after
   * it, and then this reporter speaks for the id and token it gave. `session` is the session's own
   * key (one is made when none is given): registering again with it gets the same id back, which
   * is what a reconnection does. Resolves once registered; a refusal (a reserved name) rejects
   * with its code, and `register` may be called again.
   */
  async register(args: RegisterArgs, opts: CallOptions = {}): Promise<OpResult<"peer_register">> {
    if (this.closed) throw new AgentCallError("disconnected", "the reporter is closed");
    if (this.registration)
      throw new AgentCallError("bad_request", `registered already (${this.job.id || "under way"})`);
    if (this.job.id)
      throw new AgentCallError(
        "bad_request",
        `this reporter speaks for job ${this.job.id}: register is for a session roost did not start`,
      );
    this.registration = { ...args, session: args.session ?? randomUUID() };
    this.connect();
    try {
      await this.whenConnected(opts.timeoutMs ?? 30000);
    } catch (err) {
      if (!this.job.id) this.unregister(); // never registered: nothing to keep trying for
      throw err;
    }
    return { id: this.job.id, token: this.job.token };
  }

  /**
   * Acks a reply on the current connection (`exact` for a peer item). Resolves once answered;
   * rejects `disconnected` when there is no connection (the reply comes again on the next one).
   */
  ack(seq: number, exact = false): Promise<unknown> {
    if (!this.connected) return Promise.reject(new AgentCallError("disconnected", "not connected"));
    const args = { id: this.job.id, token: this.job.token, seq, ...(exact ? { exact: true } : {}) };
    return this.request("ack", args, 30000);
  }

  /** Sends the latest report (if it has not gone), waits for its answer (up to `timeoutMs`), and disconnects. */
  async close(opts: { timeoutMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    const timeoutMs = opts.timeoutMs ?? 5000;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.latest && !this.refused && (this.job.id || this.registration)) {
      try {
        if (!this.connected) {
          this.connect();
          await this.whenConnected(timeoutMs); // the latest goes on connecting
        }
        if (this.latest !== this.sent) void this.sendReport(timeoutMs).catch(() => {});
        await this.lastReport; // answered: everything before it on the connection is too
      } catch (err) {
        this.log(`the last report was not sent: ${(err as Error).message}`);
      }
    }
    this.closed = true;
    this.shutdown();
  }

  // ---- the connection ----------------------------------------------------------------------

  private connect(): void {
    if (this.connecting || this.connected || this.closed || this.refused || this.reconnectTimer) return;
    if (!this.job.id && !this.registration) return; // a foreground session connects on register()
    this.connecting = true;
    const socket = net.connect(this.job.socket);
    this.socket = socket;
    socket.on("connect", () => {
      this.open = true;
      this.requests.restart();
      if (this.registration) this.registerOn(this.registration);
      else this.ready();
    });
    socket.on("data", (chunk: Buffer) => this.requests.read(chunk, (event) => this.onEvent(event)));
    socket.on("error", () => {}); // the close that follows says it
    socket.on("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.open = false;
      this.connected = false;
      this.connecting = false;
      this.held = null;
      this.sent = null; // the next connection sends the latest again
      this.requests.failAll(new AgentCallError("disconnected", "the connection to roost was lost"));
      if (this.closed || this.refused || (!this.job.id && !this.registration)) return;
      const { max, jitter } = this.backoff;
      const wait = this.delay * (1 - jitter + Math.random() * 2 * jitter);
      this.delay = Math.min(max, this.delay * 2);
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        this.connect();
      }, wait);
    });
  }

  /** The connection speaks for the job: hello, then the latest report. */
  private ready(): void {
    this.connecting = false;
    this.connected = true;
    this.delay = this.backoff.min;
    // Requests on one connection are answered in order, so both can be written at once.
    const hello = { protocol: 1, agent: this.agent, capabilities: this.capabilities };
    this.request("hello", hello, 30000).then(
      (result) => {
        this.daemon = result as DaemonHello;
      },
      (err: AgentCallError) => {
        // A daemon older than hello answers bad_request: go on with version 1.
        if (err.code !== "bad_request" && err.code !== "disconnected") this.log(`hello: ${err.message}`);
      },
    );
    if (this.latest) void this.sendReport(30000).catch(() => {});
    for (const w of this.connectWaiters.splice(0)) w.resolve();
  }

  /**
   * A foreground session's connection: `peer_register` first (its hello after it, so that the
   * row takes the agent's name and capabilities). The daemon sends what waited for the session
   * before it answers: those deliveries are held until the id they are for is known.
   */
  private registerOn(args: RegisterArgs): void {
    this.held = [];
    this.request("peer_register", { ...args }, 30000).then(
      (result) => {
        const { id, token } = result as OpResult<"peer_register">;
        if (this.job.id && this.job.id !== id)
          this.log(`registered as ${id}: ${this.job.id}'s row is gone, a new one was made`);
        this.job.id = id;
        this.job.token = token;
        const held = this.held ?? [];
        this.held = null;
        this.onRegistered(this.job);
        this.ready();
        for (const event of held) this.deliver(event);
      },
      (err: AgentCallError) => {
        this.held = null;
        if (err.code === "disconnected") return; // the next connection registers again
        this.log(`peer_register refused (${err.code}): ${err.message}`);
        for (const w of this.connectWaiters.splice(0)) w.reject(err);
        this.unregister();
      },
    );
  }

  /** A registration given up (refused, or never answered): no connection is made for it again. */
  private unregister(): void {
    this.registration = null;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (!this.job.id) this.socket?.destroy();
  }

  private whenConnected(timeoutMs: number): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        const i = this.connectWaiters.indexOf(waiter);
        if (i !== -1) this.connectWaiters.splice(i, 1);
        reject(new AgentCallError("timeout", `no connection to roost within ${timeoutMs} ms`));
      }, timeoutMs);
      this.connectWaiters.push(waiter);
    });
  }

  private request(op: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const socket = this.socket;
    if (!socket || !this.open) return Promise.reject(new AgentCallError("disconnected", "not connected"));
    return this.requests.send(socket, op, args, timeoutMs);
  }

  private onEvent(event: Record<string, unknown>): void {
    if (event.event !== "deliver") return;
    if (this.held) this.held.push(event as unknown as DeliverEvent);
    else this.deliver(event as unknown as DeliverEvent);
  }

  private deliver(event: DeliverEvent): void {
    try {
      this.onDeliver(event);
    } catch (err) {
      this.log(`a delivery's listener threw: ${(err as Error).message}`);
    }
  }

  private shutdown(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const closed = new AgentCallError("disconnected", "the reporter is closed");
    for (const w of this.connectWaiters.splice(0)) w.reject(closed);
    this.socket?.end();
    this.socket?.destroy();
  }

  // ---- reports -----------------------------------------------------------------------------

  private schedule(): void {
    const latest = this.latest;
    if (!latest || latest === this.sent) return;
    const wait = this.sentAt + this.coalesceMs - Date.now();
    if (urgent(latest, this.sent) || wait <= 0) {
      void this.sendReport(30000).catch(() => {});
      return;
    }
    if (!this.flushTimer)
      this.flushTimer = setTimeout(() => {
        this.flushTimer = null;
        if (this.connected) this.schedule();
      }, wait);
  }

  private sendReport(timeoutMs: number): Promise<unknown> {
    const report = this.latest!;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.sent = report;
    this.sentAt = Date.now();
    const args = { id: this.job.id, token: this.job.token, report };
    this.lastReport = this.request("report", args, timeoutMs).catch((err: AgentCallError) => {
      if (err.code === "unauthorized") {
        // Not this job's token, or the job has ended: stop speaking for it.
        this.log(`roost refused the report (${err.message}): no longer speaking for job ${this.job.id}`);
        this.refused = true;
        this.shutdown();
      } else if (err.code !== "disconnected") this.log(`report refused (${err.code}): ${err.message}`);
      throw err;
    });
    return this.lastReport;
  }
}
