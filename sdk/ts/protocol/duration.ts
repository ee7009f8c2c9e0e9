/**
 * A span of time as roost.json and the ops write it: "90s", "30m", "2h", "1h30m", "2d" (a
 * job's `idleStop`, docs/budgets.md). One reader, so that the config, `dispatch` and the CLI take
 * the same words and refuse the same ones.
 */
import Type from "typebox";

const UNITS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** How a duration is written, for a refusal to say. */
export const DURATION_FORMS = 'a number and a unit, s, m, h or d ("90s", "30m", "2h", "1h30m")';

/** The span in milliseconds, or null when `text` is not a duration. */
export function parseDuration(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (!/^(\d{1,9}\s*[smhd]\s*)+$/.test(t)) return null;
  let ms = 0;
  for (const m of t.matchAll(/(\d+)\s*([smhd])/g)) ms += Number(m[1]) * UNITS[m[2] as keyof typeof UNITS];
  return ms;
}

/** A job's `idleStop` at least this (a shorter one would stop a job between two turns) … */
export const IDLE_STOP_MIN_MS = 1000;
/** … and at most this (a month: longer is as good as off). */
export const IDLE_STOP_MAX_MS = 31 * 86_400_000;

/** What an `idleStop` may be: a duration, or off (`false`, "off"); read by `idleStopMs`. */
export const IdleStop = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Literal(false)]);
export type IdleStop = string | false;

/**
 * An `idleStop` read: its milliseconds, null for off (`false`, "off"), undefined when not given.
 * A bad one is an Error whose message says what to write (the caller adds where it was).
 */
export function idleStopMs(value: IdleStop | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === false || (typeof value === "string" && value.trim().toLowerCase() === "off")) return null;
  const ms = typeof value === "string" ? parseDuration(value) : null;
  if (ms === null)
    throw new Error(`${JSON.stringify(value)} is not a duration: write ${DURATION_FORMS}, or false (off)`);
  if (ms < IDLE_STOP_MIN_MS || ms > IDLE_STOP_MAX_MS)
    throw new Error(`${JSON.stringify(value)}: idleStop must be from 1s to 31d, or false (off)`);
  return ms;
}

/** What is wrong with an `idleStop`, or null when it is good (roost.json's check at start). */
export function idleStopProblem(value: IdleStop | undefined): string | null {
  try {
    idleStopMs(value);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
