/**
 * What a due schedule does (docs/protocol.md, "Schedules"), as a pure function of its clock, the
 * time and whether its last job still runs, so that every rule is tested on a fake clock:
 *
 * - the run due now starts a job; one whose previous job still runs is `skipped`, "still running";
 * - runs missed while roost was not running (due more than LIMITS.scheduleLateMs before it saw
 *   them: it was down, or the machine slept) follow the schedule's `missed` rule: `skip`, one
 *   `skipped` run saying how many; `once`, one job for them all (and for the one due now);
 * - a run at most that late (a daemon restarted around its time) is run, not missed;
 * - the next run is the first after now, on the schedule's own grid: a restart moves nothing.
 */
import { LIMITS, type MISSED_RULES } from "../../../sdk/ts/protocol/index.js";
import type { When } from "./when.js";

export interface Due {
  /** The run to make now: on time, or late by at most LIMITS.scheduleLateMs; null: none. */
  now: Date | null;
  /** Runs too late to make: how many (counted up to LIMITS.missedCounted: `more` past it), the last. */
  missed: { count: number; more: boolean; last: Date } | null;
  /** The first run after this moment; null: it never runs again. */
  nextAt: Date | null;
}

/** The runs due at `now` of a schedule whose next run was `nextAt`. */
export function dueRuns(
  when: When,
  anchor: Date,
  nextAt: Date,
  now: Date,
  lateMs: number = LIMITS.scheduleLateMs,
): Due {
  if (nextAt > now) return { now: null, missed: null, nextAt };
  const last = when.last(now, anchor);
  const latest = last && last > nextAt ? last : nextAt;
  const onTime = now.getTime() - latest.getTime() <= lateMs ? latest : null;
  // Missed: the runs from nextAt on, up to the last (which is not missed when it is on time).
  let count = 0;
  let more = false;
  for (let t: Date | null = nextAt; t && (onTime ? t < latest : t <= latest); t = when.next(t, anchor)) {
    if (count === LIMITS.missedCounted) {
      more = true;
      break;
    }
    count++;
  }
  const lastMissed = onTime ? when.last(new Date(latest.getTime() - 1), anchor) : latest;
  return {
    now: onTime,
    missed: count > 0 && lastMissed ? { count, more, last: lastMissed } : null,
    nextAt: when.next(now, anchor),
  };
}

/** A step of a due schedule: a run recorded as skipped, or a job to start. */
export type Step =
  | { kind: "skip"; at: Date; job: string | null; why: string }
  | { kind: "start"; at: Date; why?: string };

const runsWord = (n: number, more: boolean) =>
  `${n}${more ? " or more" : ""} run${n === 1 && !more ? "" : "s"}`;

/**
 * The steps for what is due, by the schedule's `missed` rule; `running`: the job it started last,
 * if that one still runs.
 */
export function stepsFor(
  due: Due,
  missedRule: (typeof MISSED_RULES)[number],
  running: string | null,
): Step[] {
  const steps: Step[] = [];
  const { missed } = due;
  const missedWords = missed && `${runsWord(missed.count, missed.more)} missed while roost was not running`;
  let start: Extract<Step, { kind: "start" }> | null = null;
  if (missed && missedRule === "skip")
    steps.push({ kind: "skip", at: missed.last, job: null, why: `${missedWords}` });
  if (missed && missedRule === "once") {
    const all = missed.count + (due.now ? 1 : 0);
    start = {
      kind: "start",
      at: due.now ?? missed.last,
      why: `one job for ${runsWord(all, missed.more)}: ${missedWords}`,
    };
  } else if (due.now) start = { kind: "start", at: due.now };
  if (start && running)
    steps.push({
      kind: "skip",
      at: start.at,
      job: running,
      why: missed && missedRule === "once" ? `still running; ${missedWords}` : "still running",
    });
  else if (start) steps.push(start);
  return steps;
}
