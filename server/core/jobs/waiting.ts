/**
 * Two facts a row's word is read from besides the agent's report (row-state.ts, `viewState`):
 * the children a job waits on (`waitingOn`: spawned by it, not handed back, not ended), which make a
 * resting parent `waiting` rather than `your turn`; and whether a protocol agent has begun its
 * first turn (`begun`), before which it is `starting`. Kept here so that the registry builds each
 * row from them in one place, and so that a watch on a session (watches.ts) fires on its rest, not
 * on its start.
 */
import { type FullReport, type ViewState, viewState } from "../../../sdk/ts/protocol/index.js";
import type { JobRecord } from "../../store/records.js";
import type { LiveJob } from "./registry.js";

/** The job's word on every face (row-state.ts): what its row's `view` says, from the same facts. */
export const viewOf = (job: LiveJob): ViewState =>
  viewState({
    life: job.rec.life,
    exitCode: job.rec.exitCode,
    state: job.rec.report?.state ?? "working",
    status: job.rec.report?.status ?? null,
    waitingOn: job.waitingOn,
    begun: job.begun,
  });

const AT_WORK: ReadonlySet<string> = new Set(["starting", "running"]);

/**
 * The agent's report says it has begun: anything but resting while `working` (pi's "starting",
 * `waiting` with nothing done), or nothing said yet (a screen read before the first report). An
 * answer (done, blocked, failed) is a turn's end the agent chose. (A spawn begins it too: a parent
 * that starts a child is at work, registry.ts.)
 */
export const begins = (report: FullReport | null): boolean =>
  report !== null &&
  !(report.state === "working" && (report.status === "waiting" || report.status === "idle"));

/**
 * Whether a job has begun, as a daemon that starts finds it: a job that is no protocol agent
 * always has (its screen says what it does); a protocol agent has if its last report says so.
 */
export const begunAtStart = (rec: JobRecord): boolean => !rec.launch.protocol || begins(rec.report);

/** Each job's live children, by its id: the registry keeps it as jobs come and go. */
export class Children {
  private readonly byParent = new Map<string, Set<LiveJob>>();

  add(job: LiveJob): void {
    const parent = job.rec.parent;
    if (parent === null) return;
    const set = this.byParent.get(parent) ?? new Set();
    set.add(job);
    this.byParent.set(parent, set);
  }

  remove(job: LiveJob): void {
    const parent = job.rec.parent;
    const set = parent === null ? undefined : this.byParent.get(parent);
    if (!set) return;
    set.delete(job);
    if (set.size === 0) this.byParent.delete(parent!);
  }

  /** The job has children, at work or not. */
  any(parentId: string): boolean {
    return this.byParent.has(parentId);
  }

  /**
   * The ids of the job's children at work: running (or starting, or stopped by a `respawn` that
   * starts it again: no end of its work), and not handed back.
   */
  atWork(parentId: string): string[] {
    const ids: string[] = [];
    for (const c of this.byParent.get(parentId) ?? []) {
      if ((AT_WORK.has(c.rec.life) || c.respawning) && !c.handedBack) ids.push(c.rec.id);
    }
    return ids;
  }
}

export const sameIds = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((id, i) => id === b[i]);
