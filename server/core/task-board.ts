/**
 * The task board as the daemon holds it (agent-protocol.md, "The task board (M47)"): the rules are
 * board.ts's pure `step`; here is what is around them. The board changes in memory at once, so
 * that a second request of the same turn sees the first's change (of two claims, one wins), then
 * is written, with its `task` feed entries, in the commit the turn's writes share, before the
 * answer leaves; the hubs get a `board` push. Claims follow lives: a session that ended holds
 * nothing, and one that does not come back after a daemon restart loses its claims.
 */
import { type BoardCounts, type BoardTask, LIMITS } from "../../sdk/ts/protocol/index.js";
import type { BoardStore } from "../store/board.js";
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
import type { Core } from "./core.js";
import { isEnded } from "./lifecycle.js";

const ROOST: BoardActor = { kind: "roost" };

export class TaskBoard {
  private board: Board;
  /** A write failed: the next one writes the whole board, so that the store catches up. */
  private behind = false;

  constructor(
    private readonly core: () => Core,
    private readonly store: BoardStore,
    /** How long a session that has not connected again since a restart keeps its claims, beyond LIMITS.reconnectMs. */
    readonly graceMs: number,
  ) {
    const stored = store.load();
    this.board = { tasks: stored.tasks, nextId: stored.nextId, handovers: new Map() };
  }

  get tasks(): BoardTask[] {
    return [...this.board.tasks];
  }

  counts(): BoardCounts {
    return counts(this.board);
  }

  /**
   * One action: refused (a RoostError, nothing changed), or applied at once and written with its
   * feed entries; resolved once written.
   */
  async apply(actor: BoardActor, action: BoardAction): Promise<Step> {
    const before = this.board;
    const done = step(before, actor, action, this.ctx());
    this.board = done.board;
    if (done.changes.length === 0 && !this.behind) return done;
    const whole = this.behind;
    const { saved, removed } = whole
      ? { saved: done.board.tasks, removed: [] }
      : changedBetween(before, done.board);
    this.behind = false;
    try {
      await this.store.save({ saved, removed, nextId: done.board.nextId, whole }, () =>
        this.record(done.changes),
      );
    } catch (err) {
      this.behind = true;
      throw err;
    }
    if (done.changes.length > 0) this.core().pushes.board(() => this.counts());
    return done;
  }

  /** Each change, a `task` entry in the feed (written in the board's commit). */
  private record(changes: readonly Change[]): void {
    const feed = this.core().feed;
    for (const c of changes) feed.record(c.about ?? "board", "task", c.text, c.actor, c.why);
  }

  private ctx() {
    return { now: new Date().toISOString(), isLive: (id: string) => this.isLive(id) };
  }

  /**
   * Whether a session holds what it claimed: its job runs, and its agent is connected or has
   * been away for less than the grace (a pi re-opened, an agent reconnecting after a restart).
   */
  private isLive(id: string): boolean {
    const job = this.core().registry.find(id);
    if (!job || isEnded(job)) return false;
    return job.link !== null || Date.now() < job.awaySince + this.graceMs;
  }

  /** The session holds nothing more (it failed, was stopped or removed, did not come back). */
  sessionEnded(session: string, why: string): void {
    if (!this.board.tasks.some((t) => t.state === "claimed" && t.owner?.id === session)) return;
    this.apply(ROOST, { action: "ended", session, why }).catch((err) =>
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
    const core = this.core();
    for (const id of this.holders()) {
      const job = core.registry.find(id);
      if (!job) this.sessionEnded(id, "was removed while roost was down");
      else if (isEnded(job)) this.sessionEnded(id, "ended while roost was down");
    }
    if (this.holders().length === 0) return;
    const judge = setTimeout(
      () => {
        for (const id of this.holders())
          if (!this.isLive(id)) this.sessionEnded(id, "did not come back after roost restarted");
      },
      LIMITS.reconnectMs + this.graceMs + 1,
    );
    judge.unref();
  }

  /** The sessions that hold a task. */
  private holders(): string[] {
    const ids = this.board.tasks.flatMap((t) => (t.state === "claimed" && t.owner ? [t.owner.id] : []));
    return [...new Set(ids)];
  }
}
