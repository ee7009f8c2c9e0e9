/**
 * The `when` vocabulary (docs/protocol.md, "Schedules"; the concierge's standing orders take
 * the same, so it is a module of its own): `every N(s|m|h|d)` (at least a minute), `daily HH:MM`,
 * `weekdays HH:MM`, `cron "m h dom mon dow"`, each optionally followed by `tz Area/City` (else the
 * daemon's own time zone). Read once into a `When`, which says itself in words and gives its runs.
 *
 * The calculator is croner: `daily`, `weekdays` and `cron` are compiled to a croner pattern in
 * the time zone, so its rules hold across daylight saving changes (a time the clock skips runs
 * when it has jumped, one it repeats runs once; `cron "*\/30 …"` runs on both passes). `every N`
 * is elapsed time, not wall-clock time: N after the schedule's anchor (when it was made), then
 * every N, whatever the clocks do. croner's own `interval` would do that, but it counts from the
 * real `Date.now()`, so it could not be driven by roost's clock (clock.ts); it is a product here.
 * Pure but for croner: times in, times out.
 */
import { Cron } from "croner";
import { LIMITS, RoostError } from "../../../sdk/ts/protocol/index.js";

export interface When {
  /** As written, its spaces folded. */
  readonly text: string;
  /** In words: "every 30 minutes", "every day at 18:00", "Monday to Friday at 09:00". */
  readonly words: string;
  /** The IANA time zone its times are read in. */
  readonly timeZone: string;
  /** The first run strictly after `after` (`every` counts from `anchor`); null: it never runs again. */
  next(after: Date, anchor: Date): Date | null;
  /** The last run at or before `at`; null when there is none. */
  last(at: Date, anchor: Date): Date | null;
}

const FORMS =
  'every N(s|m|h|d), daily HH:MM, weekdays HH:MM or cron "m h dom mon dow", then optionally tz Area/City';
const UNITS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const UNIT_WORDS = { s: "second", m: "minute", h: "hour", d: "day" } as const;
/** The fields croner names in its refusals, and their ranges, to say which one is wrong. */
const CRON_FIELDS: Record<string, string> = {
  minute: "the minute must be 0–59",
  hour: "the hour must be 0–23",
  day: "the day of the month must be 1–31",
  month: "the month must be 1–12 (or JAN–DEC)",
  dayOfWeek: "the day of the week must be 0–7 (or SUN–SAT; 0 and 7 are Sunday)",
};

/** The daemon's own time zone (the process's: `TZ`, else the system's). */
export const localTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

const refuse = (text: string, why: string) => new RoostError("bad_request", `${text}: ${why}`);

/**
 * Reads a `when`; anything but the vocabulary is `bad_request` saying what was wrong. `now`: a
 * cron expression that would never run again after it is refused.
 */
export function parseWhen(written: string, now: Date, zone = localTimeZone()): When {
  const text = written.trim().replace(/\s+/g, " ");
  if (!text) throw new RoostError("bad_request", `\`when\` is empty: write ${FORMS}`);
  const tz = / tz (\S+)$/i.exec(text);
  const body = tz ? text.slice(0, tz.index) : text;
  const timeZone = tz ? timeZoneNamed(text, tz[1]!) : zone;
  const inZone = tz ? `, ${timeZone} time` : "";
  const [head = "", ...rest] = body.split(" ");
  const arg = rest.join(" ");
  switch (head.toLowerCase()) {
    case "every":
      return every(text, arg, timeZone);
    case "daily": {
      const { hh, mm } = clockTime(text, head, arg);
      return onClock(text, `${mm} ${hh} * * *`, `every day at ${pad(hh)}:${pad(mm)}${inZone}`, timeZone, now);
    }
    case "weekdays": {
      const { hh, mm } = clockTime(text, head, arg);
      return onClock(
        text,
        `${mm} ${hh} * * 1-5`,
        `Monday to Friday at ${pad(hh)}:${pad(mm)}${inZone}`,
        timeZone,
        now,
      );
    }
    case "cron":
      return cron(text, arg, timeZone, inZone, now);
    default:
      throw refuse(text, `not a form roost knows: write ${FORMS}`);
  }
}

function timeZoneNamed(text: string, name: string): string {
  try {
    // Intl knows the IANA names (case aside) and answers with the canonical spelling.
    return new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw refuse(
      text,
      `tz ${name} is not a time zone this machine knows: give an IANA name, e.g. tz Europe/Berlin`,
    );
  }
}

const pad = (n: number) => String(n).padStart(2, "0");

function every(text: string, arg: string, timeZone: string): When {
  const m = /^(\d+) ?([a-z]+)$/i.exec(arg);
  if (!m) throw refuse(text, "write every N followed by s, m, h or d (every 30m, every 2h)");
  const unit = m[2]!.toLowerCase();
  if (!Object.hasOwn(UNITS, unit))
    throw refuse(text, `the unit must be s, m, h or d (seconds, minutes, hours, days), not ${m[2]}`);
  const n = Number(m[1]);
  const ms = n * UNITS[unit as keyof typeof UNITS];
  if (ms < LIMITS.everyMinMs) throw refuse(text, "at least every minute (every 1m, every 60s)");
  if (ms > LIMITS.everyMaxMs) throw refuse(text, "at most every 366 days");
  const name = UNIT_WORDS[unit as keyof typeof UNIT_WORDS];
  const words = n === 1 ? `every ${name}` : `every ${n} ${name}s`;
  return {
    text,
    words,
    timeZone,
    next(after, anchor) {
      const from = secondOf(anchor);
      const k = after.getTime() < from ? 1 : Math.floor((after.getTime() - from) / ms) + 1;
      return new Date(from + Math.max(1, k) * ms);
    },
    last(at, anchor) {
      const from = secondOf(anchor);
      const k = Math.floor((at.getTime() - from) / ms);
      return k >= 1 ? new Date(from + k * ms) : null;
    },
  };
}

/** Runs fall on whole seconds, as croner's do. */
const secondOf = (d: Date) => Math.floor(d.getTime() / 1000) * 1000;

function clockTime(text: string, head: string, arg: string): { hh: number; mm: number } {
  const m = /^(\d{1,2}):(\d{2})$/.exec(arg);
  if (!m) throw refuse(text, `the time must be HH:MM, 24-hour (${head.toLowerCase()} 18:00)`);
  const hh = Number(m[1]);
  const mm = Number(m[2]);
  if (hh > 23) throw refuse(text, "the hour must be 00–23");
  if (mm > 59) throw refuse(text, "the minute must be 00–59");
  return { hh, mm };
}

function cron(text: string, arg: string, timeZone: string, inZone: string, now: Date): When {
  const m = /^"([^"]*)"$/.exec(arg);
  if (!m)
    throw refuse(
      text,
      `the expression goes in double quotes: cron "${arg.replace(/"/g, "") || "0 9 * * 1"}"`,
    );
  const expr = m[1]!.trim().replace(/\s+/g, " ");
  const fields = expr ? expr.split(" ").length : 0;
  if (fields !== 5)
    throw refuse(
      text,
      `${fields} field${fields === 1 ? "" : "s"}: a cron expression has 5 (minute hour day-of-month month day-of-week)`,
    );
  return onClock(text, expr, `at cron "${expr}"${inZone}`, timeZone, now);
}

/** A form on the wall clock, compiled to croner; one that never runs after `now` is refused. */
function onClock(text: string, pattern: string, words: string, timeZone: string, now: Date): When {
  let job: Cron;
  try {
    job = new Cron(pattern, { timezone: timeZone, mode: "5-part", paused: true });
  } catch (err) {
    throw refuse(text, cronWhy((err as Error).message));
  }
  if (!job.nextRun(now)) throw refuse(text, "it never runs (no such date comes again)");
  return {
    text,
    words,
    timeZone,
    next: (after) => job.nextRun(after),
    // croner's previous runs are those strictly before its reference: a millisecond on, `at` counts.
    last: (at) => job.previousRuns(1, new Date(at.getTime() + 1))[0] ?? null,
  };
}

/** croner's refusal, in roost's words: which field is wrong and its range, else croner's own. */
function cronWhy(message: string): string {
  const field = /Invalid value for (\w+)/.exec(message)?.[1];
  if (field && CRON_FIELDS[field]) return CRON_FIELDS[field];
  const said = message.replace(/^CronPattern: /, "").replace(/\.$/, "");
  return said.charAt(0).toLowerCase() + said.slice(1);
}
