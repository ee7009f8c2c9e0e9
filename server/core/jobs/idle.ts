/**
 * Idle agents put to sleep (docs/budgets.md, "Idle agents"): a job with an `idleStop` (its
 * launch's `idleStopMs`) that has rested that long, its row `your turn` with no reply waiting, is
 * stopped with the reason `idle`; `respawn` wakes it, its conversation going on.
 *
 * One timer per resting job, armed when it comes to rest and dropped when it moves: exact to the
 * millisecond, and nothing runs for the jobs at work. The registry tells of every change of a row
 * (`noted`), which is where a job comes to rest or leaves it. The rest is counted from the later
 * of when roost saw it come to rest and its row's last change of content (`updatedAt`: an agent
 * that says something new while it rests has not been idle since); after a restart, from the
 * restart (a terminal agent's rest is seen on its screen, which a restart reads anew).
 */
import { span } from "../../../sdk/ts/protocol/time-words.js";
import type { LiveJob, Registry } from "./registry.js";
import { viewOf } from "./waiting.js";

interface Rest {
  /** When roost saw it come to rest (ms). */
  since: number;
  timer: NodeJS.Timeout;
}

/** What the feed says of a job put to sleep from the hub (`stop` with reason idle). */
export const SLEPT_WORDS = "put to sleep (respawn wakes it, its conversation going on)";

/** Whether the job rests as idleStop counts it: running, `your turn`, nothing waiting for it. */
function resting(job: LiveJob): boolean {
  const rec = job.rec;
  return (
    rec.launch.idleStopMs !== undefined &&
    rec.life === "running" &&
    rec.kind !== "foreground" && // its user's terminal: roost could not wake it
    rec.role !== "concierge" &&
    job.stopping === null &&
    !job.respawning &&
    job.pending === 0 &&
    viewOf(job) === "your turn"
  );
}

export class IdleStops {
  private readonly rests = new Map<LiveJob, Rest>();
  private closed = false;

  /** `sleep`: stops the job with the reason idle, its feed entry saying `words`. */
  constructor(
    private readonly registry: Registry,
    private readonly sleep: (job: LiveJob, words: string) => Promise<void>,
  ) {}

  /** Every job as found at start (or loaded): those resting begin their count now. */
  start(): void {
    for (const job of this.registry.all()) this.noted(job);
  }

  /** The job's row changed: it came to rest (its timer armed), or moved (its timer dropped). */
  noted(job: LiveJob): void {
    if (this.closed) return;
    const rest = this.rests.get(job);
    if (!resting(job)) {
      if (rest) this.forget(job, rest);
      return;
    }
    if (rest) return; // resting still: its timer, armed for its due time, looks again then
    const since = Date.now();
    this.arm(job, since);
  }

  close(): void {
    this.closed = true;
    for (const [job, rest] of this.rests) this.forget(job, rest);
  }

  private forget(job: LiveJob, rest: Rest): void {
    clearTimeout(rest.timer);
    this.rests.delete(job);
  }

  /** When the job's rest reaches its idleStop: from the later of its rest and its row's last change. */
  private dueAt(job: LiveJob, since: number): number {
    const changed = Date.parse(job.rec.updatedAt);
    return Math.max(since, Number.isNaN(changed) ? since : changed) + job.rec.launch.idleStopMs!;
  }

  private arm(job: LiveJob, since: number): void {
    const wait = Math.max(0, this.dueAt(job, since) - Date.now());
    const timer = setTimeout(() => this.due(job, since), Math.min(wait, 2 ** 31 - 1));
    timer.unref(); // the daemon lives on its sockets, not on a sleep to come
    this.rests.set(job, { since, timer });
  }

  /** Its time came: put to sleep if it rested all along, else armed again for its new due time. */
  private due(job: LiveJob, since: number): void {
    this.rests.delete(job);
    if (this.closed || this.registry.find(job.rec.id) !== job || !resting(job)) return;
    if (this.dueAt(job, since) > Date.now()) {
      this.arm(job, since);
      return;
    }
    const idleMs = job.rec.launch.idleStopMs!;
    const words = `put to sleep after ${span(Math.round(idleMs / 1000))} with nothing to do (respawn wakes it, its conversation going on)`;
    this.sleep(job, words).catch((err) => console.error(`roost: could not put ${job.rec.id} to sleep:`, err));
  }
}
