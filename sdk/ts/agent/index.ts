/**
 * `pi-roost/agent`: the TypeScript client of the agent protocol (docs/protocol.md, "Clients").
 *
 *   const agent = RoostAgent.fromEnv({ name: "my-agent", version: "1.0", onReply: async (r) => work(r.text) });
 *   agent?.report({ state: "working", summary: "reading the code" });
 *
 * Replies are handed to `onReply` once each, in order, one at a time. When the handler returns,
 * the reply's seq is written to `$ROOST_JOB_DIR/agent.json` and then acked: an agent started
 * again after a crash skips (and only acks) what it had finished, and gets again what it had not.
 * Peer items (a message from another session, a child's handback, a watch's notice) share the
 * replies' seq order and that same path: given an `onItem`, each goes to it instead (the reports
 * then say `agentItems: true`) and is acked exactly; without one they come to `onReply` as
 * follow-ups whose text begins with roost's envelope. Node builtins only.
 */
import fs from "node:fs";
import path from "node:path";
import type { DeliverEvent } from "../protocol/index.js";
import { batchText } from "../protocol/text.js";
import { findJob, findSocket, type JobEnv } from "./job-env.js";
import type { AgentReport } from "./report-fit.js";
import { Reporter, type ReporterOptions } from "./reporter.js";
import type { RegisterArgs } from "./session-ops.js";
import { SessionOps } from "./session-ops.js";

export { ITEM_BATCHES } from "../protocol/text.js";
export {
  CONCIERGE_CALLS,
  CONCIERGE_OPS,
  type ConciergeCall,
  type ConciergePolicyView,
  POLICY_TOOLS,
  policyNow,
} from "./concierge-calls.js";
export { asText, ConversationSender, type EntrySink, fitEntry, TRANSCRIPT } from "./conversation.js";
export { findJob, findSocket, type JobEnv, withoutJob } from "./job-env.js";
export { type AgentReport, fitReport, REPORT_LIMITS, truncate } from "./report-fit.js";
export { type CallOptions, type DaemonHello, Reporter, type ReporterOptions } from "./reporter.js";
export { AgentCallError } from "./requests.js";
export {
  type BoardTask,
  type Peer,
  type RegisterArgs,
  SessionOps,
  type SpawnArgs,
  type TaskResult,
  type WatchWhen,
} from "./session-ops.js";
export { RELAY_ENV, RELAYED_OPS, serveRelay, ToolSession } from "./tool-relay.js";
export {
  BOARD_ACTIONS,
  type BoardParams,
  boardAction,
  boardText,
  peerLine,
  refusal,
  taskLine,
} from "./tool-text.js";

/** One reply of the user's (or, with `kind`, a peer item), as the handler gets it. */
export interface Reply {
  seq: number;
  /** A peer item's begins with roost's envelope line (who sent it; not the user; no authority). */
  text: string;
  /**
   * `steer` (join the work under way) or `followUp` (after it); null when the user chose none.
   * Passed through as the daemon sent it: an agent that did not say "steer" in its capabilities
   * treats `steer` as `followUp`; the handler decides.
   */
  mode: "steer" | "followUp" | null;
  /** Set for a peer item (`message`, `report`, `notice`, `digest`): it is acked alone (`exact`). */
  kind?: NonNullable<DeliverEvent["kind"]>;
  /** A peer item's sender. */
  from?: { id: string; name: string };
  /** The sender as this session sees it: `parent`, `child`, `peer`, `concierge`; a notice's `roost`. */
  relation?: NonNullable<DeliverEvent["relation"]>;
  /**
   * Several items that came as one delivery (handbacks close together, a fan-in's with its notice):
   * each as it would have come alone; `text` is theirs all, `seq` the last's. Only those not
   * finished before (a delivery sent again after a restart may bring more than it did).
   */
  items?: NonNullable<DeliverEvent["items"]>;
  /** A reply the concierge gave in the user's place: `concierge` (else the user answered). */
  answeredBy?: NonNullable<DeliverEvent["answeredBy"]>;
  /** Why the concierge answered so (with `answeredBy: "concierge"`). */
  why?: string;
}

/** A peer item, as `onItem` gets it: a message (`send`), a child's `report` (`handback`), a watch's `notice`. */
export interface Item extends Reply {
  kind: NonNullable<Reply["kind"]>;
  from: NonNullable<Reply["from"]>;
  relation: NonNullable<Reply["relation"]>;
}

export interface RoostAgentOptions {
  name: string;
  version: string;
  /**
   * Said in `hello`; "report" and "replies" are always among them. Add "steer" if `onReply` honours
   * it, and `ITEM_BATCHES` to take several items as one delivery (`Reply.items`, `text` theirs all).
   */
  capabilities?: string[];
  /** One reply at a time, in order; the next comes once the promise settles. */
  onReply: (reply: Reply) => void | Promise<void>;
  /**
   * Peer items, in the same order and one at a time with the replies (a handler of either holds
   * back both), each acked exactly once it settles. Given one, the reports say `agentItems: true`
   * and hello names `agent-items`; without one, items come to `onReply` as follow-ups.
   */
  onItem?: (item: Item) => void | Promise<void>;
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

export class RoostAgent extends SessionOps {
  /** The connection underneath: `call`, what the daemon said to hello. */
  readonly reporter: Reporter;
  private readonly onReply: RoostAgentOptions["onReply"];
  private readonly onItem: RoostAgentOptions["onItem"];
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

  /**
   * The agent of a session roost did not start (a foreground one): no job until `register`. Its
   * finished seqs are remembered in memory only (it has no job directory).
   */
  static foreground(opts: RoostAgentOptions & { socket?: string }): RoostAgent {
    const socket = opts.socket ?? findSocket(opts.env ?? process.env);
    return new RoostAgent({ id: "", token: "", socket, dir: null }, opts);
  }

  constructor(job: JobEnv, opts: RoostAgentOptions) {
    super();
    this.onReply = opts.onReply;
    this.onItem = opts.onItem;
    this.onArrive = opts.onArrive ?? (() => {});
    this.log = opts.log ?? ((m) => process.stderr.write(`roost-agent: ${m}\n`));
    this.stateFile = job.dir ? path.join(job.dir, "agent.json") : null;
    if (!this.stateFile && job.id)
      this.log("ROOST_JOB_DIR is not set: finished replies are remembered in memory only");
    this.finished = this.readLastSeq();
    this.seen = this.finished;
    // Several items as one delivery (`items`) only for a caller that names ITEM_BATCHES among its
    // capabilities (pi, the ACP bridge: the batch's text is one turn): a handler that reads
    // `kind` (a handback or a notice?) would misread a batch, whose kind is its last item's.
    const capabilities = ["report", "replies", ...(this.onItem ? ["agent-items"] : [])];
    const reporter: ReporterOptions = {
      job,
      agent: { name: opts.name, version: opts.version },
      capabilities: [...new Set([...capabilities, ...(opts.capabilities ?? [])])],
      onDeliver: (event) => this.deliver(event),
      onRegistered: (registered) => this.registered(registered.id),
      log: this.log,
    };
    this.reporter = new Reporter(reporter);
  }

  /** The job this agent speaks for (a foreground session's id and token once registered). */
  get job(): JobEnv {
    return this.reporter.job;
  }

  /**
   * The agent's state: a full snapshot (what is left out is null); the first one connects.
   * `agentItems` is the client's to say: true when an `onItem` handler takes the items.
   */
  report(report: AgentReport): void {
    this.reporter.report({ ...report, agentItems: this.onItem ? true : null });
  }

  /** Any other op on the job's connection (see `Reporter.call`). */
  call(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
    return this.reporter.call(op, args);
  }

  /**
   * A foreground session becomes one (`peer_register`; see `Reporter.register`): then report, and
   * replies and items come as to any agent. Refused for an agent roost started (it is a job).
   */
  register(args: RegisterArgs): Promise<{ id: string; token: string }> {
    return this.reporter.register(args);
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

  /**
   * Written and synced before the ack (tmp, fsync, rename, the directory synced): after a power
   * loss the agent still knows what it finished, so a reply sent again is skipped, not redone.
   */
  private writeLastSeq(seq: number): void {
    if (!this.stateFile) return;
    const tmp = `${this.stateFile}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, "w");
    try {
      fs.writeSync(fd, `${JSON.stringify({ lastSeq: seq })}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.stateFile);
    syncDirectory(path.dirname(this.stateFile));
  }

  /** The id registered under is another (the old row was removed): its seqs start afresh. */
  private registeredId: string | null = null;
  private registered(id: string): void {
    if (this.registeredId !== null && this.registeredId !== id) {
      this.finished = 0;
      this.seen = 0;
    }
    this.registeredId = id;
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
    if (event.relation !== undefined) reply.relation = event.relation;
    if (event.answeredBy !== undefined) reply.answeredBy = event.answeredBy;
    if (event.why !== undefined) reply.why = event.why;
    if (event.items) {
      // Sent again, a batch may bring items finished before (by agent.json): those are left out.
      const items = event.items.filter((i) => i.seq > this.finished);
      reply.items = items;
      reply.text = batchText(items);
    }
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
        // One path for both: an item's seq is recorded and acked (exactly) as a reply's is.
        if (reply.kind !== undefined && this.onItem) await this.onItem(reply as Item);
        else await this.onReply(reply);
      } catch (err) {
        // A handler that throws counts as finished: its reply is recorded and acked like any
        // other. Otherwise it would come again on every start, throw again, and hold back every
        // reply after it (acks are cumulative, in order). An agent that wants a retry catches
        // inside its handler; a crash (the process dies) is what brings a reply again.
        this.log(
          `the handler of ${reply.kind ?? "reply"} ${reply.seq} threw (counted as handled): ${(err as Error)?.stack ?? err}`,
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

/** A rename is durable once its directory is synced. */
function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
