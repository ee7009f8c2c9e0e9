// The daemon's side of the pty host protocol: connects to <home>/pty.sock, starting the host if
// nobody answers, and turns JSON lines into promises and events.
import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { LineSplitter } from "../../sdk/ts/protocol/lines.js";
import { startDetached, whenAnswers } from "../detached.js";
import { checkSocket } from "../home.js";
import { BUILT } from "../paths.js";
import type {
  HelloResult,
  HostMessage,
  JobExit,
  JobResources,
  ListResult,
  Op,
  OpParams,
  OpResult,
  ScreenState,
  Snapshot,
  SpawnSpec,
} from "./wire.js";

export type { JobExit, JobResources, ScreenState, Snapshot, SpawnSpec } from "./wire.js";

export interface JobOutput {
  jobId: string;
  data: string;
  /** The chunk's number: 1, 2, ... in each run of the job. */
  seq: number;
}

export interface PtyHostClientEvents {
  exit: [JobExit];
  /** What an attached job printed (see attach). */
  output: [JobOutput];
  /** A job's screen, while its output flows and when it turns quiet. */
  screen: [ScreenState];
  /** What each live job's processes use, every few seconds (resources.ts). */
  resources: [{ jobs: JobResources[]; at: string }];
  close: [];
}

export interface ConnectOptions {
  /** The host entry to start when none runs; defaults to the built host.js. */
  hostScript?: string;
  /** How long a request waits for the host's answer; REQUEST_TIMEOUT_MS by default. */
  requestMs?: number;
}

// A loaded machine (a load of 12 on 2 cores) took over 5 s to start node with node-pty and xterm.
const START_TIMEOUT_MS = 15_000;
const RETRY_MS = 50;
/**
 * A request the host has not answered in this long fails (`busy`), where it would wait forever: a
 * host that is alive but stopped or wedged must not hang `dispatch`, `stop` or a schedule's runs.
 * Far above any answer seen (a spawn under a load of 20 took seconds); an answer that comes after
 * it is dropped (a spawn's ends the job it started: see `spawn`).
 */
export const REQUEST_TIMEOUT_MS = 60_000;

interface Pending {
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** What every request in flight is failed with when the host's connection closes (it went away). */
export class HostGone extends Error {
  constructor() {
    super("pty host connection closed");
  }
}

export class PtyHostClient extends EventEmitter<PtyHostClientEvents> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Requests failed for their timeout whose late success is acted on (see `spawn`), by id. */
  private readonly timedOut = new Map<number, () => void>();
  private closed = false;
  /** Unbounded: the host's answers (a screen's snapshot) are the daemon's own to bound. */
  private readonly lines = new LineSplitter();
  private deferred = false;
  private sockClosed = false;
  private closedByOwner = false;

  private constructor(
    private readonly sock: net.Socket,
    private readonly requestMs: number,
  ) {
    super();
    sock.on("data", (chunk: Buffer) => {
      this.lines.push(chunk);
      if (!this.deferred) this.readLines();
    });
    sock.on("error", () => {}); // "close" follows and says all there is to say
    sock.on("close", () => {
      this.sockClosed = true;
      if (!this.deferred) this.onClose();
    });
  }

  /** Connects to the host of `home`, starting one if none answers. */
  static async connect(home: string, opts: ConnectOptions = {}): Promise<PtyHostClient> {
    const sockPath = path.join(home, "pty.sock");
    checkSocket(sockPath); // the jobs' commands go to it: only this user can have made it
    const requestMs = opts.requestMs ?? REQUEST_TIMEOUT_MS;
    const existing = await PtyHostClient.tryConnect(sockPath, requestMs);
    if (existing) return existing;

    const hostScript = opts.hostScript ?? BUILT.ptyHost;
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    // Its own session: it outlives this daemon and its terminal.
    const log = path.join(home, "pty.log");
    const { child } = startDetached(hostScript, [home], { log, cwd: home });
    let exited = false;
    child.once("exit", () => {
      exited = true;
    });
    child.unref();
    const client = await whenAnswers(() => PtyHostClient.tryConnect(sockPath, requestMs), {
      ms: START_TIMEOUT_MS,
      everyMs: RETRY_MS,
      gone: () => exited,
    });
    if (client) return client;
    // Exited as it started: killed, or it found another host answering (which will do).
    const other = exited ? await PtyHostClient.tryConnect(sockPath, requestMs) : null;
    if (other) return other;
    throw new Error(
      exited ? `pty host exited as it started; see ${log}` : `pty host did not start; see ${log}`,
    );
  }

  /** A client whose host answered hello, or null if nothing (alive) listens there. */
  private static tryConnect(sockPath: string, requestMs: number): Promise<PtyHostClient | null> {
    return new Promise((resolve) => {
      const sock = net.connect(sockPath);
      sock.once("error", () => resolve(null));
      sock.once("connect", () => {
        const client = new PtyHostClient(sock, requestMs);
        const timer = setTimeout(() => client.close(), 2_000); // connected but hung: treat as absent
        client.hello().then(
          () => {
            clearTimeout(timer);
            resolve(client);
          },
          () => {
            clearTimeout(timer);
            client.close();
            resolve(null);
          },
        );
      });
    });
  }

  async hello(): Promise<HelloResult> {
    const { pid, version } = await this.request("hello", {});
    return { pid, version };
  }

  /**
   * Starts a job. A spawn that timed out has failed here (the job is marked as not started): should
   * the host start it after all, nobody owns that process, so it is ended and forgotten at once.
   */
  async spawn(spec: SpawnSpec): Promise<{ pid: number }> {
    const { pid } = await this.request("spawn", spec, () => this.endUnowned(spec.jobId));
    return { pid };
  }

  private endUnowned(jobId: string): void {
    const exited = new Promise<void>((resolve) => {
      const onExit = (e: JobExit) => {
        if (e.jobId !== jobId) return;
        this.off("exit", onExit);
        resolve();
      };
      this.on("exit", onExit);
    });
    this.signal(jobId, "SIGKILL")
      .then(() => exited)
      .then(() => this.forget(jobId))
      .catch(() => {}); // the host went away meanwhile: its jobs went with it
  }

  async write(jobId: string, data: string): Promise<void> {
    await this.request("write", { jobId, data });
  }

  async resize(jobId: string, cols: number, rows: number): Promise<void> {
    await this.request("resize", { jobId, cols, rows });
  }

  /** Signals the job's whole process group. */
  async signal(jobId: string, signal: NodeJS.Signals): Promise<void> {
    await this.request("signal", { jobId, signal });
  }

  async list(): Promise<ListResult> {
    const { live, exited } = await this.request("list", {});
    return { live, exited };
  }

  async forget(jobId: string): Promise<void> {
    await this.request("forget", { jobId });
  }

  /** The last 64 KiB the job printed. */
  async tail(jobId: string): Promise<string> {
    return (await this.request("tail", { jobId })).data;
  }

  /** The job's screen now, with all its output so far taken in. */
  async screen(jobId: string): Promise<ScreenState> {
    const { lines, cursorY, cursorX, wrapped, busy, at } = await this.request("screen", { jobId });
    return { jobId, lines, cursorY, cursorX, wrapped, busy, at };
  }

  /**
   * The job's screen as ANSI for a fresh terminal of cols x rows, and from then on its "output"
   * events. The output events emitted before this resolves are in the snapshot; those emitted after
   * it are not (the client emits nothing more until code awaiting the answer has run on).
   */
  async attach(jobId: string): Promise<Snapshot> {
    const { snapshot, cols, rows, seq } = await this.request("attach", { jobId });
    return { snapshot, cols, rows, seq };
  }

  /** No more output events of the job. */
  async detach(jobId: string): Promise<void> {
    await this.request("detach", { jobId });
  }

  close(): void {
    this.closedByOwner = true;
    this.sock.destroy();
    this.onClose();
  }

  /** Why a request cannot be answered: the host went away, or its owner closed the connection. */
  private closedError(): Error {
    return this.closedByOwner ? new Error("pty host connection closed by the daemon") : new HostGone();
  }

  private request<O extends Op>(op: O, params: OpParams<O>, late?: () => void): Promise<OpResult<O>> {
    if (this.closed) return Promise.reject(this.closedError());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (late) this.timedOut.set(id, late);
        reject(
          new RoostError(
            "busy",
            `the pty host has not answered ${op} in ${this.requestMs / 1000} s: try again shortly (what it says is in pty.log in roost's home)`,
          ),
        );
      }, this.requestMs);
      this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject, timer });
      this.sock.write(`${JSON.stringify({ ...params, id, op })}\n`);
    });
  }

  private readLines(): void {
    for (let line = this.lines.next(); line !== undefined; line = this.lines.next()) {
      if (!line.trim()) continue;
      let msg: HostMessage;
      try {
        msg = JSON.parse(line) as HostMessage;
      } catch {
        continue; // the host only writes JSON; nothing here to match a request to
      }
      if (this.onMessage(msg) && this.lines.waiting > 0) {
        // An answer settled a promise: let its awaiting code run before the events that came after
        // it, so that code sees them as after (what attach promises).
        this.deferred = true;
        setImmediate(() => {
          this.deferred = false;
          if (this.closed) return; // closed by its owner: nothing more to tell
          this.readLines();
          if (!this.deferred && this.sockClosed) this.onClose();
        });
        return;
      }
    }
  }

  /** True if it settled a request. */
  private onMessage(msg: HostMessage): boolean {
    if ("event" in msg) {
      const { event, ...payload } = msg;
      if (event === "exit") this.emit("exit", payload as JobExit);
      else if (event === "output") this.emit("output", payload as JobOutput);
      else if (event === "screen") this.emit("screen", payload as ScreenState);
      else if (event === "resources") this.emit("resources", payload as { jobs: JobResources[]; at: string });
      return false;
    }
    const p = msg.id === null ? undefined : this.pending.get(msg.id);
    if (!p) {
      const late = msg.id === null ? undefined : this.timedOut.get(msg.id);
      if (late) this.timedOut.delete(msg.id as number);
      if (late && msg.ok) late();
      return false;
    }
    this.pending.delete(msg.id as number);
    clearTimeout(p.timer);
    if (msg.ok) p.resolve(msg);
    else p.reject(msg.code ? new RoostError(msg.code, msg.error) : new Error(msg.error));
    return true;
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    const err = this.closedError();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    this.timedOut.clear();
    this.emit("close");
  }
}
