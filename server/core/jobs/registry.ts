/**
 * The jobs in memory: the store's records plus what only a live daemon knows (the job's
 * reporting connection, its pending count). Rows are built here; every change goes through
 * `changed` (its content: `updatedAt` is stamped) or `noted` (anything else), which push the row
 * and write the record (at once, or coalesced for reports).
 */
import {
  type FullReport,
  LIMITS,
  NULL_REPORT_FIELDS,
  type Overlap,
  type Resources,
  RoostError,
  type Row,
  type StopReason,
  type Watching,
  type WireEvent,
} from "../../../sdk/ts/protocol/index.js";
import type { JobRecord } from "../../store/records.js";
import type { Store } from "../../store/store.js";
import type { Actor } from "../feed.js";
import type { Pushes } from "../pushes.js";
import { OneAtATime } from "../serial.js";
import { conversationWord } from "./conversation.js";
import type { Hooked, ScreenReading } from "./hooked.js";
import type { Quiet } from "./typist.js";
import { begunAtStart, Children, sameIds, viewOf } from "./waiting.js";

/** A terminal's size. */
export interface Size {
  cols: number;
  rows: number;
}

/** A job's terminal's size when it starts, and its own size until a `resize` over HTTP sets it. */
export const START_SIZE: Size = { cols: 120, rows: 40 };

/** The job's reporting connection: replies go out on it (docs/protocol.md, `report`). */
export interface AgentLink {
  send(event: WireEvent): void;
  /**
   * Its job ended while it was connected (the pty host went away, a stop its process outlived):
   * the connection ends, so that the agent hears it now (its next report, on a new connection, is
   * `unauthorized`) rather than at its next report.
   */
  end(): void;
}

/**
 * A job as the live daemon holds it: its record, and all the state only a running daemon has of
 * it (here, not in the modules that use it, so that two daemons in one process share nothing).
 */
export interface LiveJob {
  rec: JobRecord;
  link: AgentLink | null;
  /**
   * While it has no link: since when its agent is away (ms; its connection closed, or the daemon
   * started, counted from LIMITS.reconnectMs after, the clients' longest wait to connect again).
   * A session away longer than the grace holds no task (task-board.ts).
   */
  awaySince: number;
  pending: number;
  /** Who is ending the process (`stop`, `rm`, `respawn`), while they are: its exit is a stop, not a failure. */
  stopping: Actor | null;
  /** Why roost is stopping it by itself, while it does (`stopFor`): the row's `stopReason` once it has ended. */
  stopFor: StopReason | null;
  /** What the stop's feed entry says of it, when more than its reason's words (idle.ts: for how long). */
  stopWords: string | null;
  /**
   * While `respawn` stops it to start it again: the same session goes on (its conversation too),
   * so its end is not one the board releases its claims for (lifecycle.ts).
   */
  respawning: boolean;
  exitWaiters: (() => void)[];
  /** Its life's changes (start, stop, rm, respawn), one at a time (lifecycle.ts, start.ts). */
  lifeChanges: OneAtATime;
  /** Replies typed into its terminal, one typist at a time (typist.ts). */
  typing: OneAtATime;
  /** A terminal agent's screen's last word and roost's last typing (typist.ts); null until started. */
  quiet: Quiet | null;
  /** What its screen last said (hooked.ts): the row as read, and the menu it shows. */
  screen: ScreenReading | null;
  /** What its agent's own hooks have said, until its session ends (hooked.ts); null: the screen alone. */
  hooked: Hooked | null;
  /** Its profile's `blockedPatterns`, compiled once it first shows a screen (screens.ts). */
  blockedPatterns: RegExp[] | null;
  /** Its profile's prompt patterns (or roost's defaults), compiled likewise (screens.ts). */
  promptPatterns: RegExp[] | null;
  /** Its terminal's own size: what it has with no viewer (viewers.ts). */
  ownSize: Size;
  /** The size last asked of the pty host for its terminal; null when not known (after a restart). */
  size: Size | null;
  /**
   * Replies with a request id saved in the commit at the end of this turn, not yet answered, by
   * request id (reply.ts): a resend meanwhile waits for that commit and is a duplicate, as after it.
   */
  repliesInFlight: Map<string, Promise<unknown>>;
  /** Its watches not yet fired, as its row shows them (watches.ts keeps it). */
  watches: Watching[];
  /** The other jobs of its repository that changed the same files (worktrees/overlaps.ts keeps it). */
  overlaps: Overlap[];
  /**
   * The answer the concierge suggests while it waits (`concierge-suggest`), until it moves on (a
   * reply, a new state or question). Kept in memory only: after a restart the concierge's next
   * digest brings a new one.
   */
  suggested: Row["suggested"];
  /** False while a protocol agent has not begun its first turn (waiting.ts); its row is `starting`. */
  begun: boolean;
  /** It handed back to its parent with `done` (`handback`): its parent no longer waits on it. */
  handedBack: boolean;
  /** Its children at work, as its row shows them (waiting.ts; kept in step by `noted`). */
  waitingOn: string[];
  /**
   * Items saved and not yet sent, held to go with others as one delivery (replies.ts, "Batches"):
   * their seqs, in order. In memory: a new connection is sent every pending item anyway.
   */
  held: number[];
  /** The end of a handback's short wait for others (replies.ts), while one runs. */
  heldTimer: NodeJS.Timeout | null;
  /** The deliveries that brought several items, by the seq they went under: an exact ack of it takes them all. */
  batches: Map<number, number[]>;
  /** A watch on its own children waits (watches.ts keeps it): its children's handbacks are held until it fires. */
  fanIn: boolean;
  /** What its processes use, as the pty host last said (terminals/resources.ts); null: not known. */
  resources: (Omit<Resources, "activeAt"> & { pid: number }) | null;
  /** When its screen last changed (a screen event from the pty host), ISO; null before any. */
  screenAt: string | null;
}

const liveJob = (rec: JobRecord, pending: number, awaySince = Date.now()): LiveJob => ({
  rec,
  link: null,
  awaySince,
  pending,
  stopping: null,
  stopFor: null,
  stopWords: null,
  respawning: false,
  exitWaiters: [],
  lifeChanges: new OneAtATime(),
  typing: new OneAtATime(),
  quiet: null,
  screen: null,
  hooked: null,
  blockedPatterns: null,
  promptPatterns: null,
  ownSize: START_SIZE,
  size: null,
  repliesInFlight: new Map(),
  watches: [],
  overlaps: [],
  suggested: null,
  begun: begunAtStart(rec),
  handedBack: false,
  waitingOn: [],
  held: [],
  heldTimer: null,
  batches: new Map(),
  fanIn: false,
  resources: null,
  screenAt: null,
});

const REPORT_FLUSH_MS = 200;
/** After a failed write: not so soon that a full disk fills the log. */
const REPORT_RETRY_MS = 5000;

export const EMPTY_REPORT: FullReport = { state: "working", ...NULL_REPORT_FIELDS };

export class Registry {
  private readonly jobs = new Map<string, LiveJob>();
  private readonly unsaved = new Set<LiveJob>();
  private readonly children = new Children();
  /** The row's `budget` (core/budgets/, set once the core is made). */
  budgetOf: (job: LiveJob) => Row["budget"] = () => null;
  /** A job's `waitingOn` changed, by its child's change (the core tells its watchers: watches.ts). */
  onWaitingChanged: (job: LiveJob, child: LiveJob) => void = () => {};
  /** Any change of a job's row (idle.ts hears a job come to rest, or move again). */
  onNoted: (job: LiveJob) => void = () => {};
  private flushTimer: NodeJS.Timeout | null = null;
  /** The last `updatedAt` made, and its millisecond: a busy daemon changes rows many times in one. */
  private clock = { ms: 0, iso: "" };

  /** `jobs`: the store's, as checked at start (stored-jobs.ts). */
  constructor(
    private readonly store: Store,
    private readonly pushes: Pushes,
    jobs: JobRecord[],
  ) {
    const pending = store.pendingCounts();
    // Their agents were cut off by the restart: each has until then to be back.
    const backBy = Date.now() + LIMITS.reconnectMs;
    for (const rec of jobs) {
      const job = liveJob(rec, pending.get(rec.id) ?? 0, backBy);
      this.jobs.set(rec.id, job);
      this.children.add(job);
    }
    for (const job of this.jobs.values()) {
      job.waitingOn = this.children.atWork(job.rec.id);
      // A session that spawned has begun, whatever its last report said ("waiting for helpers").
      if (this.children.any(job.rec.id)) job.begun = true;
    }
  }

  all(): LiveJob[] {
    return [...this.jobs.values()];
  }

  find(id: string): LiveJob | undefined {
    return this.jobs.get(id);
  }

  get(id: string): LiveJob {
    const job = this.jobs.get(id);
    if (!job) throw new RoostError("not_found", `no job ${JSON.stringify(id)}: \`roost ls\` lists the jobs`);
    return job;
  }

  add(rec: JobRecord, pending: number): LiveJob {
    const job = liveJob(rec, pending);
    this.jobs.set(rec.id, job);
    this.children.add(job);
    this.pushes.row(rec.id, () => this.row(job));
    // A session that spawns a child is at work: it has begun, whatever it reported.
    const parent = rec.parent === null ? undefined : this.jobs.get(rec.parent);
    if (parent) parent.begun = true;
    this.parentMayWait(job);
    return job;
  }

  remove(job: LiveJob): void {
    this.jobs.delete(job.rec.id);
    this.children.remove(job);
    this.unsaved.delete(job);
    this.pushes.removed(job.rec.id);
    this.parentMayWait(job);
  }

  /** The child's life or handback may change what its parent waits on: the parent's row says it. */
  private parentMayWait(child: LiveJob): void {
    const parent = child.rec.parent === null ? undefined : this.jobs.get(child.rec.parent);
    if (!parent) return;
    const now = this.children.atWork(parent.rec.id);
    if (sameIds(now, parent.waitingOn)) return;
    parent.waitingOn = now;
    this.noted(parent, false);
    this.onWaitingChanged(parent, child);
  }

  /**
   * The job's content changed (docs/protocol.md, "A row": what the agent said, its name, its life
   * and exit code, its waiting replies): `updatedAt` is now; the row is pushed and written (`noted`).
   */
  changed(job: LiveJob, durable: boolean): void {
    job.rec.updatedAt = this.now();
    this.noted(job, durable);
  }

  /**
   * Something of the job changed besides its content (its place, its pin, its connection, its
   * pid, its status alone): push its row; write it now (`durable`, for what must survive a crash:
   * life, exit codes, names, places) or within REPORT_FLUSH_MS together with others (reports,
   * which the agent sends again after a restart anyway). `updatedAt` stays.
   */
  noted(job: LiveJob, durable: boolean): void {
    this.pushes.row(job.rec.id, () => this.row(job));
    this.parentMayWait(job);
    this.onNoted(job);
    if (durable) {
      this.unsaved.delete(job);
      this.store.updateJob(job.rec);
      return;
    }
    this.unsaved.add(job);
    this.flushTimer ??= setTimeout(() => this.flush(), REPORT_FLUSH_MS);
  }

  /**
   * Pushes its row, and nothing else: no write, no `updatedAt` (what the pty host reads of its
   * processes, terminals/resources.ts, which a restart reads again within seconds).
   */
  shown(job: LiveJob): void {
    this.pushes.row(job.rec.id, () => this.row(job));
  }

  private now(): string {
    const ms = Date.now();
    if (ms !== this.clock.ms) this.clock = { ms, iso: new Date(ms).toISOString() };
    return this.clock.iso;
  }

  /**
   * Writes every coalesced change now (also at shutdown). A job whose write fails (the disk is
   * full) stays unsaved and is tried again with the next flush; the others' are written.
   */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.unsaved.size === 0) return;
    const jobs = [...this.unsaved];
    this.unsaved.clear();
    const failed = this.store.updateJobs(jobs.map((j) => j.rec));
    if (failed.length === 0) return;
    for (const { job: rec, error } of failed) {
      console.error(
        `roost: could not save ${rec.id}'s row (tried again shortly): ${(error as Error).message}`,
      );
      const job = this.jobs.get(rec.id);
      if (job) this.unsaved.add(job);
    }
    this.flushTimer ??= setTimeout(() => this.flush(), REPORT_RETRY_MS);
  }

  /** Rows in the user's order: pinned first, then `order` (docs/protocol.md, `list`). */
  rows(): Row[] {
    return this.all()
      .sort((a, b) => Number(b.rec.pinned) - Number(a.rec.pinned) || a.rec.order - b.rec.order)
      .map((j) => this.row(j));
  }

  /** The job's name as its row shows it: the user's, else the agent's, else roost's. */
  nameOf(job: LiveJob): string {
    return job.rec.userName ?? job.rec.report?.name ?? job.rec.defaultName;
  }

  row(job: LiveJob): Row {
    const r = job.rec;
    const report = r.report ?? EMPTY_REPORT;
    // Object.assign, not a spread: `{...report, id, ...}` with 40 fields built each row in about
    // 25 µs (a `list` of 10,000 rows took 260 ms to build), this in about 1.
    return Object.assign({}, report, {
      id: r.id,
      name: this.nameOf(job),
      profile: r.profile,
      role: r.role,
      kind: r.kind,
      pinned: r.pinned,
      order: r.order,
      life: r.life,
      exitCode: r.exitCode,
      connected: job.link !== null,
      capabilities: r.capabilities,
      agent: r.agent,
      pending: job.pending,
      lastSeq: r.lastSeq,
      asked: r.asked,
      suggested: job.suggested,
      parent: r.parent,
      view: viewOf(job),
      waitingOn: job.waitingOn,
      begun: job.begun,
      watches: job.watches,
      pid: r.pid,
      cwd: r.launch.cwd,
      worktree: r.worktree,
      overlaps: job.overlaps,
      sandboxed: r.launch.sandbox !== undefined,
      conversation: conversationWord(r.conversation),
      stopReason: r.stopReason,
      resources: resourcesOf(job),
      budget: this.budgetOf(job),
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      updatedAt: r.updatedAt,
    });
  }

  /** The lowest order in use, so a new job goes on top. */
  topOrder(): number {
    let min = 0;
    for (const j of this.jobs.values()) min = Math.min(min, j.rec.order);
    return min - 1;
  }
}

/** Its row's `resources`: while it runs, with when it last showed a change (its screen, its reports). */
function resourcesOf(job: LiveJob): Resources | null {
  // Of this run only: a respawned job's last run's are not shown until its first read.
  if (job.rec.life !== "running" || job.resources === null || job.resources.pid !== job.rec.pid) return null;
  const said = job.rec.report ? job.rec.updatedAt : null;
  const activeAt = job.screenAt !== null && (said === null || job.screenAt > said) ? job.screenAt : said;
  const { pid: _, ...read } = job.resources;
  return { ...read, activeAt };
}
