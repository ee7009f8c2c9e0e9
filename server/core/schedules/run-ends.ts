/**
 * When a scheduled run is over (docs/protocol.md, "Schedules", "A run's end"), read from its job's
 * row as every face reads it (row-state.ts), so that it holds however a row comes to say "your
 * turn": a terminal job's run is over once its task was typed, it worked, and it came to rest
 * (`your turn` again: its prompt is back); a protocol agent's once it says `done`; any job's once
 * it ends (exits, is stopped or removed). And the skips a schedule counts, and what it then says.
 */
import { SCHEDULE_SKIPS_NEED, type ScheduleRun } from "../../../sdk/ts/protocol/index.js";
import { type LiveJob, viewOf } from "../jobs/index.js";

/** A run's job, followed until its run is over. */
export interface Following {
  /** Its task is typed (nothing of roost's waits to be typed): what follows answers the task. */
  typed: boolean;
  /** It was seen working since its task was typed. */
  worked: boolean;
}

/** How a run came to be over: its job at rest (kept or stopped next), or ended by itself. */
export type Over = { kind: "rest"; words: string } | { kind: "ended"; words: string };

/** A job starting its run: a task given as an argument is "typed" from the start. */
export const following = (job: LiveJob): Following => ({ typed: job.pending === 0, worked: false });

/**
 * Whether the run of `job` (undefined: removed) is over now; `f` is brought up to date. The
 * first change seen once the task is typed is not a rest: the row may still show the prompt the
 * task was typed at, until the screen answers.
 */
export function runOver(f: Following, job: LiveJob | undefined): Over | null {
  if (!job) return { kind: "ended", words: "removed" };
  const { life, exitCode } = job.rec;
  if (life === "stopped") return { kind: "ended", words: "stopped" };
  if (life === "exited")
    return { kind: "ended", words: exitCode ? `failed: exited with code ${exitCode}` : "exited" };
  if (job.rec.launch.protocol)
    return job.rec.report?.state === "done" ? { kind: "rest", words: "said done" } : null;
  const view = viewOf(job);
  if (!f.typed) {
    // Typing changes no report: the first change seen with nothing left to type may be its answer.
    f.typed = job.pending === 0;
    if (f.typed && view === "working") f.worked = true;
    return null;
  }
  if (view === "working") f.worked = true;
  return f.worked && view === "your turn" ? { kind: "rest", words: "came to rest" } : null;
}

/** Its last runs that were skipped, in a row (a run that started a job, or failed, ends the count). */
export function skipsOf(runs: readonly ScheduleRun[]): number {
  let n = 0;
  for (let i = runs.length - 1; i >= 0 && runs[i]!.outcome === "skipped"; i--) n++;
  return n;
}

/** "skipped 3 times: j13 still running", once SCHEDULE_SKIPS_NEED in a row were skipped; else null. */
export function needWords(runs: readonly ScheduleRun[]): string | null {
  const n = skipsOf(runs);
  if (n < SCHEDULE_SKIPS_NEED) return null;
  const last = runs.at(-1)!;
  return `skipped ${n} times: ${last.job ? `${last.job} ` : ""}${last.why ?? "skipped"}`;
}
