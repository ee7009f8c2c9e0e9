/**
 * A job whose budget is spent is paused (docs/budgets.md): a protocol agent that is connected gets a
 * steer from roost saying so, and is stopped if it goes on (reports `working` once the steer was
 * delivered, or still works after the grace); one not connected, and a terminal agent that rests,
 * is stopped at once; a terminal agent at work is stopped once its turn ends.
 */
import type { LiveJob } from "../jobs/index.js";
import type { BudgetParts } from "./budgets.js";
import type { ScopeView } from "./scopes.js";

interface Pause {
  /** The steer's seq, once sent (protocol agents). */
  seq: number | null;
  timer: NodeJS.Timeout | null;
  stopping: boolean;
}

export class Pauses {
  private readonly paused = new Map<string, Pause>();

  constructor(
    private readonly parts: Pick<BudgetParts, "steer" | "stop" | "registry" | "store" | "graceMs">,
  ) {}

  has(id: string): boolean {
    return this.paused.has(id);
  }

  /** Pauses the job (once: a job paused already is left as it is). `why`: which budget, in words. */
  pause(job: LiveJob, _v: ScopeView, why: string): void {
    if (this.paused.has(job.rec.id)) return;
    const p: Pause = { seq: null, timer: null, stopping: false };
    this.paused.set(job.rec.id, p);
    if (job.rec.kind === "terminal") {
      if (rests(this.parts, job)) this.stop(job);
      return;
    }
    if (!job.link) {
      this.stop(job);
      return;
    }
    const text = `roost: ${why}. Stop now: finish this step only, say done with what you have, and start nothing new. Your user continues you by raising the budget or respawning you.`;
    this.parts
      .steer(job, text)
      .then((seq) => {
        if (this.paused.get(job.rec.id) !== p) return;
        p.seq = seq ?? null;
        p.timer = setTimeout(() => {
          if (this.paused.get(job.rec.id) === p && working(this.parts, job)) this.stop(job);
        }, this.parts.graceMs);
        p.timer.unref();
      })
      .catch(() => this.stop(job)); // the steer could not be sent: stopped as one not connected
  }

  /** A report of a paused job: a terminal agent that rests is stopped; a protocol agent that goes on after the steer is too. */
  reported(job: LiveJob): void {
    const p = this.paused.get(job.rec.id);
    if (!p || p.stopping || job.rec.life !== "running") return;
    if (job.rec.kind === "terminal") {
      if (rests(this.parts, job)) this.stop(job);
      return;
    }
    if (p.seq !== null && this.delivered(job, p.seq) && working(this.parts, job)) this.stop(job);
  }

  forget(id: string): void {
    const p = this.paused.get(id);
    if (p?.timer) clearTimeout(p.timer);
    this.paused.delete(id);
  }

  close(): void {
    for (const id of [...this.paused.keys()]) this.forget(id);
  }

  /** The steer was taken by the agent (acked). */
  private delivered(job: LiveJob, seq: number): boolean {
    return !this.parts.store.pendingReplies(job.rec.id).some((r) => r.seq === seq);
  }

  private stop(job: LiveJob): void {
    const p = this.paused.get(job.rec.id);
    if (!p || p.stopping) return;
    p.stopping = true;
    if (p.timer) clearTimeout(p.timer);
    this.parts
      .stop(job)
      .catch((err) => console.error(`roost: could not stop ${job.rec.id} for its budget: ${err}`));
  }
}

const viewOf = (parts: Pick<BudgetParts, "registry">, job: LiveJob) => parts.registry.row(job).view;
/** At work: its turn not over. */
const working = (parts: Pick<BudgetParts, "registry">, job: LiveJob) => viewOf(parts, job) === "working";
/** Its turn is over (its prompt shows, it asks, it waits on its children). */
const rests = (parts: Pick<BudgetParts, "registry">, job: LiveJob) => {
  const v = viewOf(parts, job);
  return v !== "working" && v !== "starting";
};
