/**
 * A schedule (docs/protocol.md, "Schedules"): a launch that roost starts as `dispatch` would, on
 * a clock written in the `when` vocabulary. The shapes `schedules` and `schedule-*` answer with,
 * and the `schedule` push.
 */
import Type, { type Static } from "typebox";
import { JobId, JobName, LIMITS, oneOf } from "./schema.js";

/** What a run came to: a job started, no job (`skipped`: still running, or missed), or a refusal. */
export const RUN_OUTCOMES = ["started", "skipped", "failed"] as const;
/** Runs missed while roost was not running: one `skipped` run saying how many, or one job for them all. */
export const MISSED_RULES = ["skip", "once"] as const;

/** Runs skipped in a row after which a schedule needs the user (its `needsYou`). */
export const SCHEDULE_SKIPS_NEED = 3;

/** A schedule's id: `s1`, `s2`, …, never reused. */
export const ScheduleId = Type.String({ minLength: 1, maxLength: 64 });

/** A `when` as written (the vocabulary is the daemon's: server/core/schedules/when.ts). */
export const WhenText = Type.String({ minLength: 1, maxLength: LIMITS.scheduleWhen });

/** What each run starts: `dispatch`'s args, the task required. */
export const ScheduleLaunch = Type.Object({
  profile: Type.String({ minLength: 1, maxLength: 100 }),
  task: Type.String({ minLength: 1, maxLength: LIMITS.text }),
  /** The name of each job it starts (default: the task's first words). */
  name: Type.Optional(JobName),
  cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  /** Each job in a git worktree of its own, on a new branch `roost/<job-id>` (docs/worktrees.md). */
  worktree: Type.Optional(Type.Boolean()),
  /**
   * Each job kept once its run is over (it came to rest, or said done), rather than stopped: the
   * next runs skip while it runs. A profile's `keep` says the same for its jobs.
   */
  keep: Type.Optional(Type.Boolean()),
});
export type ScheduleLaunch = Static<typeof ScheduleLaunch>;

export const ScheduleRun = Type.Object({
  /** When it was due (a run by hand: when it was asked for; runs missed: the last of them). */
  at: Type.String(),
  /** The job it started, or the one still running when it skipped; null when there was none. */
  job: Type.Union([JobId, Type.Null()]),
  outcome: oneOf(RUN_OUTCOMES),
  why: Type.Optional(Type.String()),
  /**
   * A started run's end: when, and how ("came to rest; stopped", "said done; kept", "exited with
   * code 3", "stopped", "removed"). Absent while its job still runs its task.
   */
  ended: Type.Optional(Type.Object({ at: Type.String(), how: Type.String() })),
});
export type ScheduleRun = Static<typeof ScheduleRun>;

export const Schedule = Type.Object({
  id: ScheduleId,
  name: Type.String(),
  when: Type.String(),
  /** `when` in words: "every day at 18:00", "Monday to Friday at 09:00". */
  words: Type.String(),
  /** The IANA time zone its times are in: its `tz`, else the daemon's own. */
  timeZone: Type.String(),
  launch: ScheduleLaunch,
  paused: Type.Boolean(),
  missed: oneOf(MISSED_RULES),
  createdAt: Type.String(),
  /** Its next run (ISO 8601, UTC); null while paused, or when it will never run again. */
  nextAt: Type.Union([Type.String(), Type.Null()]),
  lastAt: Type.Union([Type.String(), Type.Null()]),
  /** The last job it started: a run skips while that one still runs. */
  lastJob: Type.Union([JobId, Type.Null()]),
  /** The last 20 runs, oldest first. */
  runs: Type.Array(ScheduleRun),
  /** Its runs skipped in a row, the last ones (a run that starts a job sets it back to 0). */
  skips: Type.Integer(),
  /**
   * Why it needs the user, once SCHEDULE_SKIPS_NEED runs in a row were skipped ("skipped 3 times:
   * j13 still running"); null otherwise. Raised once, as a feed entry and a notify event.
   */
  needsYou: Type.Union([Type.String(), Type.Null()]),
});
export type Schedule = Static<typeof Schedule>;

/** Pushed to subscribers when a schedule is added, changed or run (`schedule` null: removed). */
export const ScheduleEvent = Type.Object({
  event: Type.Literal("schedule"),
  id: ScheduleId,
  schedule: Type.Union([Schedule, Type.Null()]),
});
export type ScheduleEvent = Static<typeof ScheduleEvent>;
