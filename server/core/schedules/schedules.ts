/**
 * Schedules (docs/protocol.md, "Schedules"; protocol.md, "Schedules"): launches on a clock, kept in
 * the store with their next run, each run a job started as `dispatch` starts one. At most 100.
 *
 * Each schedule's next run is a due thing of the daemon's one clock (clock.ts): no timer of its
 * own. At start every schedule is armed with the next run the store kept; one already past fires
 * at once, and what it does (a run, runs missed while roost was down) is schedule-plan.ts's. The
 * next run is armed before a run's job starts, and a clock run's dispatch carries a request id of
 * the schedule and the run's time, so that a run is started once even if the daemon dies between
 * the start and the write that records it. Every change is written, pushed (`schedule` events)
 * and said in the feed (`schedule` entries: `id` the schedule's, the text naming the job).
 */
import {
  LIMITS,
  type OpArgs,
  type OpResult,
  RoostError,
  type Row,
  type Schedule,
  type ScheduleRun,
} from "../../../sdk/ts/protocol/index.js";
import type { ScheduleRecord } from "../../store/records.js";
import type { Store } from "../../store/store.js";
import type { Clock } from "../clock.js";
import { type Actor, type Feed, ROOST } from "../feed.js";
import { isEnded, type LiveJob, type Registry } from "../jobs/index.js";
import type { Pushes } from "../pushes.js";
import { excerpt, messageOf, oneLine } from "../text.js";
import { worktreeBase } from "../worktrees/index.js";
import { type Following, following, needWords, runOver, skipsOf } from "./run-ends.js";
import { dueRuns, stepsFor } from "./schedule-plan.js";
import { parseWhen, type When } from "./when.js";

interface LiveSchedule {
  rec: ScheduleRecord;
  /** Its `when`, read; null when it no longer reads (its time zone gone from this machine). */
  when: When | null;
  /** Why it does not read, then. */
  unreadable: string | null;
  /**
   * Its runs' turns, one after another: a run that comes due while the last one's job is still
   * being started (a slow dispatch, or a clock fast enough) waits, then sees that job running.
   */
  turn: Promise<void>;
}

const live = (rec: ScheduleRecord, when: When | null, unreadable: string | null = null): LiveSchedule => ({
  rec,
  when,
  unreadable,
  turn: Promise.resolve(),
});

/** A run's outcome, and the error that made it `failed` (for `schedule-run` to answer with). */
interface Launched {
  run: ScheduleRun;
  job: Row | null;
  error: unknown;
}

/**
 * What the schedules use of the rest of the daemon: its store, pushes, feed and jobs, and a job
 * started as `dispatch` starts one (jobs/dispatch.ts: `dispatch` and its `checkLaunch`).
 */
export interface ScheduleParts {
  store: Pick<Store, "schedules" | "createSchedule" | "removeSchedule" | "putSchedule" | "synced">;
  pushes: Pick<Pushes, "schedule">;
  feed: Pick<Feed, "record">;
  registry: Pick<Registry, "find">;
  /** Stops a job whose run is over (jobs/lifecycle.ts's `stop`). */
  stop: (job: LiveJob, actor: Actor) => Promise<void>;
  /** Whether roost.json's profile says `keep` (its jobs stay once their run is over). */
  keeps: (profile: string) => boolean;
  /** Said when a schedule comes to need the user (the notify hooks' `schedule-needs-you`). */
  needsYou?: (schedule: Schedule) => void;
  dispatch: (args: OpArgs<"dispatch">, actor: Actor) => Promise<{ job: Row }>;
  checkLaunch: (args: Pick<OpArgs<"dispatch">, "profile" | "cwd" | "name">) => {
    cwd: string;
    name: string | null;
  };
}

export class Schedules {
  private readonly all = new Map<string, LiveSchedule>();
  /** The jobs of runs not yet over, by job id: a row's change costs one lookup for the rest. */
  private readonly running = new Map<string, Following & { s: LiveSchedule }>();
  private readonly store: ScheduleParts["store"];

  constructor(
    private readonly parts: ScheduleParts,
    private readonly clock: Clock,
  ) {
    this.store = parts.store;
    const now = clock.now();
    for (const rec of this.store.schedules()) {
      try {
        this.all.set(rec.id, live(rec, parseWhen(rec.when, now)));
      } catch (err) {
        this.all.set(rec.id, live(rec, null, (err as Error).message));
      }
    }
  }

  /** Arms every schedule with the next run kept: one due already (missed while down) fires at once. */
  start(): void {
    for (const s of this.all.values()) {
      this.arm(s);
      // A run whose job still ran when roost stopped is followed again, from what its row says now.
      const run = s.rec.runs.findLast((r) => r.outcome === "started");
      if (run?.job && !run.ended) this.follow(s, run.job);
    }
  }

  /**
   * A job's row changed, or it was removed: if it is a scheduled run's, and the run is now over
   * (run-ends.ts), the end is recorded and, at rest, the job is stopped unless kept.
   */
  jobChanged(id: string, removed = false): void {
    const f = this.running.get(id);
    if (!f) return;
    const job = removed ? undefined : this.parts.registry.find(id);
    const over = runOver(f, job);
    if (!over) return;
    this.running.delete(id);
    const { s } = f;
    if (this.all.get(s.rec.id) !== s) return; // removed meanwhile
    const keep = s.rec.launch.keep === true || this.parts.keeps(job?.rec.profile ?? s.rec.launch.profile);
    const how =
      over.kind === "ended" ? over.words : `${over.words}; ${keep ? "kept (keep: true)" : "stopped"}`;
    const run = s.rec.runs.findLast((r) => r.job === id && r.outcome === "started");
    if (run) run.ended = { at: this.clock.now().toISOString(), how };
    this.store.putSchedule(s.rec);
    this.parts.pushes.schedule(s.rec.id, this.view(s));
    const actor = { who: `schedule ${s.rec.id}`, whoId: null };
    this.parts.feed.record(s.rec.id, "schedule", `${s.rec.name}: ${id}'s run is over: ${how}`, actor);
    if (over.kind === "rest" && !keep && job)
      this.parts.stop(job, actor).catch((err) => console.error(`roost: could not stop ${id}:`, err));
  }

  /** Follows a run's job until its run is over; one that ended already is recorded at once. */
  private follow(s: LiveSchedule, id: string): void {
    const job = this.parts.registry.find(id);
    this.running.set(id, { s, ...(job ? following(job) : { typed: true, worked: false }) });
    this.jobChanged(id, !job);
  }

  list(): Schedule[] {
    return [...this.all.values()].map((s) => this.view(s));
  }

  /** `schedule-when`: a `when` read, its next runs from now, saved nowhere. */
  preview(args: OpArgs<"schedule-when">): OpResult<"schedule-when"> {
    const now = this.clock.now();
    const when = parseWhen(args.when, now);
    const next: string[] = [];
    for (let t = when.next(now, now); t && next.length < (args.count ?? 3); t = when.next(t, now))
      next.push(t.toISOString());
    return { when: when.text, words: when.words, timeZone: when.timeZone, next };
  }

  /** Each change is on disk (synced) before it is answered, as a reply is. */
  async add(args: OpArgs<"schedule-add">, actor: Actor): Promise<Schedule> {
    if (this.all.size >= LIMITS.schedules)
      throw new RoostError(
        "full",
        `there are ${LIMITS.schedules} schedules, the most roost keeps: remove one first (schedule-rm)`,
      );
    const now = this.clock.now();
    const when = parseWhen(args.when, now);
    const checked = this.parts.checkLaunch(args.launch);
    // Each run's worktree is made from the repository's HEAD then; whether there is one is checked now.
    if (args.launch.worktree) await worktreeBase(checked.cwd, undefined);
    const launch = {
      profile: args.launch.profile,
      task: args.launch.task,
      ...(checked.name !== null ? { name: checked.name } : {}),
      ...(args.launch.cwd !== undefined ? { cwd: checked.cwd } : {}),
      ...(args.launch.worktree !== undefined ? { worktree: args.launch.worktree } : {}),
      ...(args.launch.keep !== undefined ? { keep: args.launch.keep } : {}),
    };
    const rec = this.store.createSchedule((num) => ({
      id: `s${num}`,
      name: args.name === undefined ? excerpt(args.launch.task, 60) : scheduleName(args.name),
      when: when.text,
      launch,
      paused: false,
      missed: args.missed ?? "skip",
      createdAt: now.toISOString(),
      nextAt: when.next(now, now)?.toISOString() ?? null,
      lastAt: null,
      lastJob: null,
      runs: [],
    }));
    const s = live(rec, when);
    this.all.set(rec.id, s);
    this.arm(s);
    this.changed(s, `added: ${when.words}, ${launch.profile}: ${excerpt(launch.task, 60)}`, actor);
    await this.store.synced();
    return this.view(s);
  }

  async remove(id: string, actor: Actor): Promise<void> {
    const s = this.get(id);
    this.all.delete(id);
    this.clock.set(dueKey(id), null, () => {});
    this.store.removeSchedule(id);
    this.parts.pushes.schedule(id, null);
    this.parts.feed.record(id, "schedule", `${s.rec.name}: removed`, actor);
    await this.store.synced();
  }

  /** Paused, it runs only by hand; resumed, its next run is the first from now (none is owed). */
  async pause(id: string, paused: boolean, actor: Actor): Promise<void> {
    const s = this.get(id);
    if (s.rec.paused === paused) return;
    if (!paused && !s.when) throw new RoostError("bad_request", `${id} cannot run: ${s.unreadable}`);
    s.rec.paused = paused;
    const now = this.clock.now();
    s.rec.nextAt = paused ? null : (s.when!.next(now, new Date(s.rec.createdAt))?.toISOString() ?? null);
    this.arm(s);
    this.changed(s, paused ? "paused" : `resumed: next run ${s.rec.nextAt ?? "never"}`, actor);
    await this.store.synced();
  }

  /** `schedule-run`: a job now, off the clock (its next run stays); recorded as its runs are. */
  async runNow(id: string, actor: Actor): Promise<{ job: Row }> {
    const s = this.get(id);
    const launched = await this.launch(s, this.clock.now(), "by hand");
    this.recordRuns(s, [launched.run], actor);
    if (!launched.job) throw launched.error;
    return { job: launched.job };
  }

  private get(id: string): LiveSchedule {
    const s = this.all.get(id);
    if (s) return s;
    const ids = [...this.all.keys()];
    throw new RoostError(
      "not_found",
      `no schedule ${JSON.stringify(id)}${ids.length ? `; the schedules are: ${ids.join(", ")}` : ": there are none"}`,
    );
  }

  /** Its next run on the clock; none while paused or unreadable. */
  private arm(s: LiveSchedule): void {
    const at = s.rec.paused || !s.when || !s.rec.nextAt ? null : new Date(s.rec.nextAt);
    this.clock.set(dueKey(s.rec.id), at, (now) => {
      s.turn = s.turn
        .then(() => this.due(s, now))
        .catch((err) => console.error(`roost: schedule ${s.rec.id}'s run failed:`, err));
    });
  }

  /** Its next run has come: what is due is done (schedule-plan.ts), its next run armed first. */
  private async due(s: LiveSchedule, now: Date): Promise<void> {
    if (this.all.get(s.rec.id) !== s || s.rec.paused || !s.when || !s.rec.nextAt) return;
    const due = dueRuns(s.when, new Date(s.rec.createdAt), new Date(s.rec.nextAt), now);
    if (!due.now && !due.missed) return this.arm(s); // woken early: nothing is due yet
    s.rec.nextAt = due.nextAt?.toISOString() ?? null;
    this.arm(s);
    const runs: ScheduleRun[] = [];
    for (const step of stepsFor(due, s.rec.missed, this.stillRunning(s))) {
      if (step.kind === "skip")
        runs.push({ at: step.at.toISOString(), job: step.job, outcome: "skipped", why: step.why });
      else
        runs.push(
          (await this.launch(s, step.at, step.why, `schedule.${s.rec.id}.${step.at.toISOString()}`)).run,
        );
    }
    this.recordRuns(s, runs, ROOST);
  }

  /** The job it started last, while that one still runs. */
  private stillRunning(s: LiveSchedule): string | null {
    const job = s.rec.lastJob ? this.parts.registry.find(s.rec.lastJob) : undefined;
    return job && !isEnded(job) ? job.rec.id : null;
  }

  /** Starts its job as `dispatch` does: a refusal (a profile gone from roost.json) is a `failed` run. */
  private async launch(s: LiveSchedule, at: Date, why?: string, requestId?: string): Promise<Launched> {
    const { profile, task, name, cwd, worktree } = s.rec.launch;
    const base = { at: at.toISOString(), ...(why ? { why } : {}) };
    try {
      const { job } = await this.parts.dispatch(
        {
          profile,
          task,
          ...(name ? { name } : {}),
          ...(cwd ? { cwd } : {}),
          ...(worktree !== undefined ? { worktree } : {}),
          ...(requestId ? { requestId } : {}),
        },
        { who: `schedule ${s.rec.id}`, whoId: null },
      );
      s.rec.lastJob = job.id;
      return { run: { ...base, job: job.id, outcome: "started" }, job, error: null };
    } catch (err) {
      const said = messageOf(err);
      return { run: { at: base.at, job: null, outcome: "failed", why: said }, job: null, error: err };
    }
  }

  /** Runs kept (the last LIMITS.scheduleRuns), written with its next run, pushed, in the feed. */
  private recordRuns(s: LiveSchedule, runs: ScheduleRun[], actor: Actor): void {
    if (this.all.get(s.rec.id) !== s) return; // removed while its job started
    const needed = needWords(s.rec.runs);
    s.rec.runs = [...s.rec.runs, ...runs].slice(-LIMITS.scheduleRuns);
    const last = runs.at(-1);
    if (last) s.rec.lastAt = last.at;
    this.store.putSchedule(s.rec);
    const view = this.view(s);
    this.parts.pushes.schedule(s.rec.id, view);
    for (const r of runs)
      this.parts.feed.record(s.rec.id, "schedule", `${s.rec.name}: ${runWords(r)}`, actor);
    for (const r of runs) if (r.outcome === "started" && r.job) this.follow(s, r.job);
    // Raised once, as the count reaches it: further skips say nothing new.
    if (view.needsYou && !needed) {
      this.parts.feed.record(s.rec.id, "schedule", `${s.rec.name}: needs you: ${view.needsYou}`, ROOST);
      this.parts.needsYou?.(view);
    }
  }

  /** A change of its own (added, paused, resumed): written, pushed, in the feed. */
  private changed(s: LiveSchedule, what: string, actor: Actor): void {
    this.store.putSchedule(s.rec);
    this.parts.pushes.schedule(s.rec.id, this.view(s));
    this.parts.feed.record(s.rec.id, "schedule", `${s.rec.name}: ${what}`, actor);
  }

  private view(s: LiveSchedule): Schedule {
    const { rec, when } = s;
    return {
      id: rec.id,
      name: rec.name,
      when: rec.when,
      words: when?.words ?? `${rec.when} (cannot run: ${s.unreadable})`,
      timeZone: when?.timeZone ?? "",
      launch: rec.launch,
      paused: rec.paused,
      missed: rec.missed,
      createdAt: rec.createdAt,
      nextAt: rec.paused || !when ? null : rec.nextAt,
      lastAt: rec.lastAt,
      lastJob: rec.lastJob,
      runs: rec.runs,
      skips: skipsOf(rec.runs),
      needsYou: needWords(rec.runs),
    };
  }
}

const dueKey = (id: string) => `schedule ${id}`;

/** A schedule's own name: one line, not empty. */
function scheduleName(name: string): string {
  const folded = oneLine(name);
  if (!folded) throw new RoostError("bad_request", "name is empty once folded to one line");
  return folded;
}

/** "started j12", "skipped (j12 still running)", "skipped: 3 runs missed …", "failed: why". */
function runWords(r: ScheduleRun): string {
  if (r.outcome === "started") return `started ${r.job}${r.why ? ` (${r.why})` : ""}`;
  if (r.outcome === "skipped") return `skipped: ${r.why}${r.job ? ` (${r.job})` : ""}`;
  return `failed: ${r.why}`;
}
