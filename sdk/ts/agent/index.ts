/**
 * `pi-roost/agent`: the TypeScript client of the agent protocol (agent-protocol.md, "Clients").
 *
 *   const agent = RoostAgent.fromEnv({ name: "my-agent", version: "1.0", onReply: async (r) => work(r.text) });
 *   agent?.report({ state: "working", summary: "reading the code" });
 *
 * Replies are handed to `onReply` once each, in order, one at a time. When the handler returns,
 * the reply's seq is written to `$ROOST_JOB_DIR/agent.json` and then acked: an agent started
 * again after a crash skips (and only acks) what it had finished, and gets again what it had not.
 * Node builtins only.
 */
import fs from "node:fs";
import path from "node:path";
import type { DeliverEvent } from "../protocol/index.js";
import { type AgentReport, findJob, type JobEnv, Reporter } from "./reporter.js";

export {
  AgentCallError,
  type AgentReport,
  type CallOptions,
  type DaemonHello,
  findJob,
  fitReport,
  type JobEnv,
  REPORT_LIMITS,
  Reporter,
  type ReporterOptions,
  truncate,
} from "./reporter.js";

/** One reply of the user's (or, with `kind`, a peer item), as the handler gets it. */
export interface Reply {
  seq: number;
  text: string;
  /**
   * `steer` (join the work under way) or `followUp` (after it); null when the user chose none.
   * Passed through as the daemon sent it: an agent that did not say "steer" in its capabilities
   * treats `steer` as `followUp`; the handler decides.
   */
  mode: "steer" | "followUp" | null;
  /** Set for a peer item (`message`, `report`, `notice`, `digest`): it is acked alone (`exact`). */
  kind?: string;
  from?: unknown;
}

export interface RoostAgentOptions {
  name: string;
  version: string;
  /** Said in `hello`; "report" and "replies" are always among them. Add "steer" if `onReply` honours it. */
  capabilities?: string[];
  /** One reply at a time, in order; the next comes once the promise settles. */
  onReply: (reply: Reply) => void | Promise<void>;
  /**
   * Every new reply the moment it arrives, before its turn (it still comes to `onReply` in
   * order): a handler under way can look at what waits, e.g. a `steer` "stop".
   */
  onArrive?: (reply: Reply) => void;
  /** Where the client says what went wrong (default: stderr). */
  log?: (message: string) => void;
  /** The environment to read the job from (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

export class RoostAgent {
  /** The connection underneath: `call`, the task board's helpers, what the daemon said to hello. */
  readonly reporter: Reporter;
  readonly job: JobEnv;
  private readonly onReply: RoostAgentOptions["onReply"];
  private readonly onArrive: (reply: Reply) => void;
  private readonly log: (message: string) => void;
  private readonly stateFile: string | null;
  /** The last seq whose handler finished (kept in agent.json before its ack). */
  private finished: number;
  /** The highest seq queued or handled in this process: a delivery at or below it is not queued again. */
  private seen: number;
  private readonly queue: Reply[] = [];
  private running: Promise<void> | null = null;
  private closing = false;
  private readonly acks = new Set<Promise<unknown>>();

  /** The agent of the job roost runs this process for; null when roost did not start it. */
  static fromEnv(opts: RoostAgentOptions): RoostAgent | null {
    const job = findJob(opts.env ?? process.env);
    return job ? new RoostAgent(job, opts) : null;
  }

  constructor(job: JobEnv, opts: RoostAgentOptions) {
    this.job = job;
    this.onReply = opts.onReply;
    this.onArrive = opts.onArrive ?? (() => {});
    this.log = opts.log ?? ((m) => process.stderr.write(`roost-agent: ${m}\n`));
    this.stateFile = job.dir ? path.join(job.dir, "agent.json") : null;
    if (!this.stateFile) this.log("ROOST_JOB_DIR is not set: finished replies are remembered in memory only");
    this.finished = this.readLastSeq();
    this.seen = this.finished;
    this.reporter = new Reporter({
      job,
      agent: { name: opts.name, version: opts.version },
      capabilities: [...new Set(["report", "replies", ...(opts.capabilities ?? [])])],
      onDeliver: (event) => this.deliver(event),
      log: this.log,
    });
  }

  /** The agent's state: a full snapshot (what is left out is null); the first one connects. */
  report(report: AgentReport): void {
    this.reporter.report(report);
  }

  /** Any other op on the job's connection (see `Reporter.call`). */
  call(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
    return this.reporter.call(op, args);
  }

  /**
   * Takes no more replies, waits up to `timeoutMs` (default 5 s) for a handler under way (acked
   * only if it finishes in that time; otherwise it comes again on the next start), sends the
   * latest report and disconnects. Replies queued behind it are left for the next start.
   */
  async close(opts: { timeoutMs?: number } = {}): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const timeoutMs = opts.timeoutMs ?? 5000;
    const deadline = Date.now() + timeoutMs;
    this.queue.length = 0;
    if (this.running) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      });
      await Promise.race([this.running, timeout]);
      clearTimeout(timer);
    }
    // What finished in time is acked before the connection closes.
    this.stopped = true;
    await Promise.allSettled([...this.acks]);
    await this.reporter.close({ timeoutMs: Math.max(100, deadline - Date.now()) });
  }

  /** Set once close has waited: a handler finishing after this neither records nor acks its reply. */
  private stopped = false;

  private readLastSeq(): number {
    if (!this.stateFile) return 0;
    try {
      const seq = (JSON.parse(fs.readFileSync(this.stateFile, "utf8")) as { lastSeq?: unknown }).lastSeq;
      return typeof seq === "number" && Number.isInteger(seq) && seq > 0 ? seq : 0;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.log(`agent.json unreadable: ${String(err)}`);
      return 0;
    }
  }

  private writeLastSeq(seq: number): void {
    if (!this.stateFile) return;
    const tmp = `${this.stateFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify({ lastSeq: seq })}\n`);
    fs.renameSync(tmp, this.stateFile);
  }

  private deliver(event: DeliverEvent): void {
    if (event.id !== this.job.id || typeof event.seq !== "number") return;
    const exact = event.kind !== undefined;
    if (event.seq <= this.finished) {
      // Finished already (in this process, or before a crash, by agent.json): ack it again only.
      if (!this.closing) this.sendAck(event.seq, exact);
      return;
    }
    if (event.seq <= this.seen || this.closing) return; // queued or under way: its ack follows its handler
    this.seen = event.seq;
    const reply: Reply = { seq: event.seq, text: event.text, mode: event.mode ?? null };
    if (event.kind !== undefined) reply.kind = event.kind;
    if (event.from !== undefined) reply.from = event.from;
    this.queue.push(reply);
    try {
      this.onArrive(reply);
    } catch (err) {
      this.log(`onArrive threw: ${(err as Error).message}`);
    }
    if (!this.running) this.running = this.drain();
  }

  private async drain(): Promise<void> {
    for (let reply = this.queue.shift(); reply; reply = this.queue.shift()) {
      try {
        await this.onReply(reply);
      } catch (err) {
        // A handler that throws counts as finished: its reply is recorded and acked like any
        // other. Otherwise it would come again on every start, throw again, and hold back every
        // reply after it (acks are cumulative, in order). An agent that wants a retry catches
        // inside its handler; a crash (the process dies) is what brings a reply again.
        this.log(
          `the handler of reply ${reply.seq} threw (counted as handled): ${(err as Error)?.stack ?? err}`,
        );
      }
      if (this.stopped) break; // close returned before this one finished: it comes again next start
      try {
        this.writeLastSeq(reply.seq);
      } catch (err) {
        // Acked all the same (a later ack would cover it anyway): only a crash before the ack
        // could then bring it again.
        this.log(`agent.json could not be written: ${(err as Error).message}`);
      }
      this.finished = reply.seq;
      this.sendAck(reply.seq, reply.kind !== undefined);
    }
    this.running = null;
  }

  private sendAck(seq: number, exact: boolean): void {
    // Not connected: the reply comes again on the next connection, is skipped there and acked then.
    const ack = this.reporter.ack(seq, exact).catch((err: { code?: string; message?: string }) => {
      if (err.code !== "disconnected") this.log(`ack ${seq} refused (${err.code}): ${err.message}`);
    });
    this.acks.add(ack);
    void ack.finally(() => this.acks.delete(ack));
  }
}
