/**
 * The task board as the daemon holds it (docs/protocol.md, "The task board"): the rules are
 * board.ts's pure `step`; here is what is around them. The board changes in memory at once, so
 * that a second request of the same turn sees the first's change (of two claims, one wins), then
 * is written, with its `task` feed entries, in the commit the turn's writes share, before the
 * answer leaves; the hubs get a `board` push. Claims follow lives: a session that ended holds
 * nothing, and one that does not come back after a daemon restart loses its claims.
 *
 * A board shared with other daemons (PostgreSQL, pg-board.ts; docs/fleet.md) is worked in turns,
 * one at a time, each taking every step that waits: the board read again, the steps taken on it,
 * what they changed written at once; a turn whose write found the board changed by another daemon
 * is taken again on the board as it now is. Another daemon's session holds its claims while its
 * daemon holds its lease; past it, any daemon releases them. What others change reaches this
 * daemon's feed and hubs as its own changes do.
 */
import {
  type BoardCounts,
  type BoardTask,
  byId,
  LIMITS,
  RoostError,
  taskView,
} from "../../../sdk/ts/protocol/index.js";
import { type BoardNote, type BoardStore, StaleBoard, type StoredBoard } from "../../store/board.js";
import { encodeOnce } from "../encoded.js";
import type { Feed } from "../feed.js";
import { isEnded, type Registry } from "../jobs/index.js";
import type { Pushes } from "../pushes.js";
import {
  type Board,
  type BoardAction,
  type BoardActor,
  type Change,
  changedBetween,
  counts,
  type Step,
  step,
} from "./board.js";

const ROOST: BoardActor = { kind: "roost" };

/** A step asked of a shared board, and what the caller writes with it. */
interface Asked {
  actor: BoardActor;
  action: BoardAction;
  also?: ((done: Step) => void) | undefined;
}

/** What waits for a shared board's turn: a step, or a read (`asked` null). */
interface Waiting {
  asked: Asked | null;
  resolve: (done: Step | null) => void;
  reject: (err: unknown) => void;
}

/** `viewed()`'s tasks, the board's tasks they were made of, and each one's viewed by the board's. */
interface Shown {
  board: readonly BoardTask[];
  tasks: BoardTask[];
  of: ReadonlyMap<BoardTask, BoardTask>;
}
/** How many times a step is taken again when other daemons keep writing first. */
const STALE_TRIES = 50;

export class TaskBoard {
  private board: Board;
  /** A write failed: the next one writes the whole board, so that the store catches up. */
  private behind = false;
  /** A shared board's turns, one at a time (each reads the board, steps, writes). */
  private turn: Promise<unknown> = Promise.resolve();
  /** What waits for a shared board's next turn. */
  private waiting: Waiting[] = [];
  private shown: Shown | null = null;

  constructor(
    /** The jobs whose sessions hold claims, the feed the changes go to, the pushes the hubs get. */
    private readonly registry: Pick<Registry, "find">,
    private readonly feed: Pick<Feed, "record">,
    private readonly pushes: Pick<Pushes, "board">,
    private readonly store: BoardStore,
    /** The board as stored at start (`store.load()`). */
    stored: StoredBoard,
    /** How long a session that has not connected again since a restart keeps its claims, beyond LIMITS.reconnectMs. */
    readonly graceMs: number,
  ) {
    this.board = { tasks: stored.tasks, nextId: stored.nextId, handovers: new Map() };
    store.watch((notes) => this.changedElsewhere(notes));
  }

  counts(): BoardCounts {
    return counts(this.board);
  }

  /**
   * The board as answers give it, each task with its `view` (blocked, failed …), oldest first:
   * made once for each board, and encoded once (encoded.ts), since every answer of `task` carries
   * it whole (50 sessions working a board of 200 are answered it some 2,000 times). Frozen.
   */
  viewed(): BoardTask[] {
    return this.shownNow().tasks;
  }

  /**
   * A step's task as answers give it: as the step left it (the board may have changed since), its
   * `view` as the board is now.
   */
  viewedTask(task: BoardTask): BoardTask {
    const shown = this.shownNow();
    return shown.of.get(task) ?? { ...task, view: taskView(task, byId(this.board.tasks)) };
  }

  private shownNow(): Shown {
    if (this.shown?.board !== this.board.tasks) {
      // A step changes a task or two (and the views of those waiting on them): the others, and
      // their JSON, are the last board's.
      const all = byId(this.board.tasks);
      const before = this.shown?.of;
      const of = new Map<BoardTask, BoardTask>();
      for (const t of this.board.tasks) {
        const view = taskView(t, all);
        const had = before?.get(t);
        of.set(t, had?.view === view ? had : encodeOnce({ ...t, view }));
      }
      this.shown = { board: this.board.tasks, tasks: encodeOnce([...of.values()]), of };
    }
    return this.shown;
  }

  /** The board as it is now (a shared one read again), as `viewed` gives it. */
  async list(): Promise<BoardTask[]> {
    if (this.store.shared) await this.shared(null);
    return this.viewed();
  }

  /**
   * One action: refused (a RoostError, nothing changed), or applied at once and written with its
   * feed entries; resolved once written.
   */
  apply(actor: BoardActor, action: BoardAction, also?: (done: Step) => void): Promise<Step> {
    return this.store.shared
      ? (this.shared({ actor, action, also }) as Promise<Step>)
      : this.write(actor, action, also);
  }

  /**
   * On a shared board, what is asked waits for the next turn, and a turn takes all that waits: one
   * read of the board, the steps one after the other on it, one write of what they changed (a read
   * alone, `null`, is answered the board as the turn leaves it). Fifty sessions asking at once cost
   * a read and a write, not fifty of each, one after another.
   */
  private shared(asked: Asked | null): Promise<Step | null> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ asked, resolve, reject });
      if (this.waiting.length === 1) void this.inTurn(() => this.sharedTurn(this.waiting.splice(0)));
    });
  }

  /** `fn` once the turns before it are over: one at a time. */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.turn.then(fn);
    this.turn = next.catch(() => {});
    return next;
  }

  /**
   * One turn's steps, on the board as stored now; all again, on the board as it then is, when
   * another daemon wrote first. A step refused is refused alone; a write that fails fails them all.
   */
  private async sharedTurn(turn: Waiting[]): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await this.reload();
        const before = this.board;
        const outcomes = turn.map(({ asked }) => (asked ? this.stepped(asked) : null));
        const done = outcomes.filter((o): o is Step => o !== null && !(o instanceof Error));
        const changes = done.flatMap((d) => d.changes);
        if (changes.length > 0) {
          const { saved, removed } = changedBetween(before, this.board);
          const change = {
            saved,
            removed,
            nextId: this.board.nextId,
            whole: false,
            notes: changes.map(noteOf),
          };
          await this.store.save(change, () => {
            this.record(changes);
            for (const [i, o] of outcomes.entries())
              if (o !== null && !(o instanceof Error)) turn[i]!.asked?.also?.(o);
          });
          this.pushes.board(() => this.counts());
        }
        for (const [i, o] of outcomes.entries())
          if (o instanceof Error) turn[i]!.reject(o);
          else turn[i]!.resolve(o);
        return;
      } catch (err) {
        const stale = err instanceof StaleBoard;
        if (!stale || tries >= STALE_TRIES) {
          const why = stale
            ? new RoostError(
                "busy",
                "the board kept changing under this step (other daemons' writes): try again",
              )
            : err;
          for (const w of turn) w.reject(why);
          return;
        }
      }
    }
  }

  /** One step on the board in memory: the board moves on, or the refusal is given back. */
  private stepped({ actor, action }: Asked): Step | Error {
    try {
      const done = step(this.board, actor, action, this.ctx());
      this.board = done.board;
      return done;
    } catch (err) {
      return err as Error;
    }
  }

  private async reload(): Promise<void> {
    const stored = await this.store.load();
    this.board = { tasks: stored.tasks, nextId: stored.nextId, handovers: this.board.handovers };
  }

  /**
   * One step on this daemon's own board, written in the commit the turn's writes share. `also`:
   * what the caller writes with the step's feed entries (a request id's answer).
   */
  private async write(actor: BoardActor, action: BoardAction, also?: (done: Step) => void): Promise<Step> {
    const before = this.board;
    const done = step(before, actor, action, this.ctx());
    this.board = done.board;
    if (done.changes.length === 0 && !this.behind) return done;
    const whole = this.behind;
    const { saved, removed } = whole
      ? { saved: done.board.tasks, removed: [] }
      : changedBetween(before, done.board);
    this.behind = false;
    const notes = done.changes.map(noteOf);
    try {
      await this.store.save({ saved, removed, nextId: done.board.nextId, whole, notes }, () => {
        this.record(done.changes);
        also?.(done);
      });
    } catch (err) {
      this.behind = true; // this board's own store (a shared one is read again at each turn)
      throw err;
    }
    if (done.changes.length > 0) this.pushes.board(() => this.counts());
    return done;
  }

  /**
   * Other daemons changed the board (or a lease was renewed): it is read again, their changes go to
   * the feed, the hubs get a push, and the claims of daemons whose lease ran out are released.
   */
  private changedElsewhere(notes: BoardNote[]): void {
    this.inTurn(() => this.reload())
      .then(() => {
        for (const n of notes) this.feed.record(n.about ?? "board", "task", n.text, n.actor, n.why);
        if (notes.length > 0) this.pushes.board(() => this.counts());
        // Only the claims made under the lease that ran out, judged on the board as the release reads
        // it: a claim made once its daemon took its lease again is that live daemon's.
        for (const id of this.holders())
          if (this.store.elsewhereLive(id) === false)
            this.sessionEnded(
              id,
              "was on a daemon that stopped answering (its lease on the board ran out)",
              (t) => this.store.lapsed(t),
            );
      })
      .catch((err) => console.error("roost: could not read the board again:", (err as Error).message));
  }

  /** Each change, a `task` entry in the feed (written in the board's commit). */
  private record(changes: readonly Change[]): void {
    for (const c of changes) this.feed.record(c.about ?? "board", "task", c.text, c.actor, c.why);
  }

  private ctx() {
    return { now: new Date().toISOString(), isLive: (id: string) => this.isLive(id) };
  }

  /**
   * Whether a session holds what it claimed: its job runs, and its agent is connected or has
   * been away for less than the grace (a pi re-opened, an agent reconnecting after a restart).
   */
  private isLive(id: string): boolean {
    const elsewhere = this.store.elsewhereLive(id);
    if (elsewhere !== null) return elsewhere; // another daemon's: live while it holds its lease
    const job = this.registry.find(id);
    if (job?.respawning) return true; // stopped to be started again at once: the same session
    if (!job || isEnded(job)) return false;
    return job.link !== null || Date.now() < job.awaySince + this.graceMs;
  }

  /** The session holds nothing more (it failed, was stopped or removed, did not come back); `only`: of its claims, those. */
  sessionEnded(session: string, why: string, only?: (task: BoardTask) => boolean): void {
    if (!this.board.tasks.some((t) => t.state === "claimed" && t.owner?.id === session)) return;
    this.apply(ROOST, { action: "ended", session, why, ...(only ? { only } : {}) }).catch((err) =>
      console.error(`roost: could not release ${session}'s tasks:`, err),
    );
  }

  /**
   * At start, the jobs found again: the claims of sessions that ended or went while roost was down
   * go now. A session whose job runs keeps its claims while its agent connects again: judged once,
   * the clients' longest wait between reconnections and the grace after the start (when its
   * `awaySince` runs out), one that is not back by then loses them, as if it had ended.
   */
  afterRestart(): void {
    for (const id of this.holders(true)) {
      const job = this.registry.find(id);
      if (!job) this.sessionEnded(id, "was removed while roost was down");
      else if (isEnded(job)) this.sessionEnded(id, "ended while roost was down");
    }
    if (this.holders(true).length === 0) return;
    const restartedAt = new Date().toISOString();
    const judge = setTimeout(
      () => {
        for (const id of this.holders(true)) {
          // One started again since (a respawn) is judged by its own life, as any job's, not here:
          // its agent may take longer than the grace to connect.
          const startedAt = this.registry.find(id)?.rec.startedAt ?? "";
          if (startedAt >= restartedAt) continue;
          if (!this.isLive(id)) this.sessionEnded(id, "did not come back after roost restarted");
        }
      },
      LIMITS.reconnectMs + this.graceMs + 1,
    );
    judge.unref();
  }

  /** The sessions that hold a task (`here`: this daemon's only). */
  private holders(here = false): string[] {
    const ids = this.board.tasks.flatMap((t) => (t.state === "claimed" && t.owner ? [t.owner.id] : []));
    return [...new Set(ids)].filter((id) => !here || this.store.elsewhereLive(id) === null);
  }
}

const noteOf = (c: Change): BoardNote => ({ about: c.about, why: c.why, text: c.text, actor: c.actor });
