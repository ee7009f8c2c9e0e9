/**
 * The `when` vocabulary (docs/protocol.md, "Schedules"; server/core/schedules/when.ts): each form read, in
 * words, with its runs; each refusal saying what was wrong; and the runs across daylight saving
 * changes, in the schedule's time zone (croner's rules: a time skipped runs when the clock has
 * jumped, one repeated runs once; elapsed-time forms do not care).
 */
import { describe, expect, it } from "vitest";
import { RoostError } from "../../../sdk/ts/protocol/index.js";
import { parseWhen, type When } from "../../../server/core/schedules/when.js";

const NOW = new Date("2026-01-05T10:17:23.456Z"); // a Monday

/** The next `n` runs after `from` (an `every` counting from `anchor`). */
function runs(when: When, n: number, from = NOW, anchor = from): string[] {
  const out: string[] = [];
  for (let t = when.next(from, anchor); t && out.length < n; t = when.next(t, anchor))
    out.push(t.toISOString());
  return out;
}

function refusal(text: string): string {
  try {
    parseWhen(text, NOW, "UTC");
  } catch (err) {
    expect(err).toBeInstanceOf(RoostError);
    expect((err as RoostError).code).toBe("bad_request");
    return (err as Error).message;
  }
  throw new Error(`${text} was not refused`);
}

describe("each form", () => {
  it("every N: elapsed time from the anchor, in s, m, h or d, at least a minute", () => {
    const w = parseWhen("every 30m", NOW, "UTC");
    expect([w.text, w.words, w.timeZone]).toEqual(["every 30m", "every 30 minutes", "UTC"]);
    expect(runs(w, 3)).toEqual([
      "2026-01-05T10:47:23.000Z",
      "2026-01-05T11:17:23.000Z",
      "2026-01-05T11:47:23.000Z",
    ]);
    // The grid is the anchor's, whatever moment one asks from.
    expect(runs(w, 1, new Date("2026-01-05T12:00:00Z"), NOW)).toEqual(["2026-01-05T12:17:23.000Z"]);
    expect(w.last(new Date("2026-01-05T12:00:00Z"), NOW)?.toISOString()).toBe("2026-01-05T11:47:23.000Z");
    expect(w.last(new Date("2026-01-05T10:30:00Z"), NOW)).toBeNull(); // none yet
    expect(parseWhen("every 90s", NOW, "UTC").words).toBe("every 90 seconds");
    expect(parseWhen("every 60s", NOW, "UTC").words).toBe("every 60 seconds");
    expect(parseWhen("every 1m", NOW, "UTC").words).toBe("every minute");
    expect(parseWhen("every 1h", NOW, "UTC").words).toBe("every hour");
    expect(parseWhen("every 2d", NOW, "UTC").words).toBe("every 2 days");
    expect(runs(parseWhen("every 1d", NOW, "UTC"), 1)).toEqual(["2026-01-06T10:17:23.000Z"]);
  });

  it("daily HH:MM: every day at that time, in the daemon's time zone", () => {
    const w = parseWhen("daily 18:00", NOW, "Europe/Berlin");
    expect([w.words, w.timeZone]).toEqual(["every day at 18:00", "Europe/Berlin"]);
    expect(runs(w, 2)).toEqual(["2026-01-05T17:00:00.000Z", "2026-01-06T17:00:00.000Z"]);
    expect(parseWhen("daily 9:05", NOW, "UTC").words).toBe("every day at 09:05");
  });

  it("weekdays HH:MM: Monday to Friday", () => {
    const w = parseWhen("weekdays 09:00", NOW, "UTC");
    expect(w.words).toBe("Monday to Friday at 09:00");
    const fri = new Date("2026-01-09T12:00:00Z");
    expect(runs(w, 2, fri)).toEqual(["2026-01-12T09:00:00.000Z", "2026-01-13T09:00:00.000Z"]);
  });

  it('cron "5 fields": croner\'s expressions, names and extensions included', () => {
    const w = parseWhen('cron "0 9 * * 1"', NOW, "UTC");
    expect(w.words).toBe('at cron "0 9 * * 1"');
    expect(runs(w, 2)).toEqual(["2026-01-12T09:00:00.000Z", "2026-01-19T09:00:00.000Z"]);
    expect(runs(parseWhen('cron "*/15 9-10 * * MON-FRI"', NOW, "UTC"), 2)).toEqual([
      "2026-01-05T10:30:00.000Z",
      "2026-01-05T10:45:00.000Z",
    ]);
    expect(runs(parseWhen('cron "0 0 L * *"', NOW, "UTC"), 1)).toEqual(["2026-01-31T00:00:00.000Z"]);
    expect(parseWhen('cron "0   9 * *  1"', NOW, "UTC").words).toBe('at cron "0 9 * * 1"');
  });

  it("tz Area/City: the times are read in that zone (its name spelled as IANA does)", () => {
    const w = parseWhen("daily 18:00 tz america/new_york", NOW, "UTC");
    expect([w.words, w.timeZone]).toEqual(["every day at 18:00, America/New_York time", "America/New_York"]);
    expect(runs(w, 1)).toEqual(["2026-01-05T23:00:00.000Z"]);
    const c = parseWhen('cron "0 9 * * 1" tz Asia/Kolkata', NOW, "UTC");
    expect(runs(c, 1)).toEqual(["2026-01-12T03:30:00.000Z"]);
    expect(parseWhen("every 2h tz Europe/Paris", NOW, "UTC").timeZone).toBe("Europe/Paris");
  });

  it("folds spaces and takes its keywords in any case", () => {
    const w = parseWhen("  Daily   07:30  ", NOW, "UTC");
    expect([w.text, w.words]).toEqual(["Daily 07:30", "every day at 07:30"]);
    expect(parseWhen("EVERY 5M", NOW, "UTC").words).toBe("every 5 minutes");
  });
});

describe("each refusal says what was wrong", () => {
  it.each([
    ["", "`when` is empty: write every N(s|m|h|d), daily HH:MM"],
    [
      "sometimes",
      'sometimes: not a form roost knows: write every N(s|m|h|d), daily HH:MM, weekdays HH:MM or cron "m h dom mon dow", then optionally tz Area/City',
    ],
    ["hourly", "hourly: not a form roost knows"],
    ["every", "every: write every N followed by s, m, h or d (every 30m, every 2h)"],
    ["every soon", "every soon: write every N followed by s, m, h or d"],
    ["every 30s", "every 30s: at least every minute (every 1m, every 60s)"],
    ["every 0m", "every 0m: at least every minute"],
    ["every 5w", "every 5w: the unit must be s, m, h or d (seconds, minutes, hours, days), not w"],
    ["every 367d", "every 367d: at most every 366 days"],
    ["daily 25:00", "daily 25:00: the hour must be 00–23"],
    ["daily 18:60", "daily 18:60: the minute must be 00–59"],
    ["daily 6pm", "daily 6pm: the time must be HH:MM, 24-hour (daily 18:00)"],
    ["daily", "daily: the time must be HH:MM, 24-hour (daily 18:00)"],
    ["weekdays 9", "weekdays 9: the time must be HH:MM, 24-hour (weekdays 18:00)"],
    ["cron 0 9 * * 1", 'cron 0 9 * * 1: the expression goes in double quotes: cron "0 9 * * 1"'],
    [
      'cron "0 9 * *"',
      'cron "0 9 * *": 4 fields: a cron expression has 5 (minute hour day-of-month month day-of-week)',
    ],
    ['cron "0 0 9 * * 1"', 'cron "0 0 9 * * 1": 6 fields: a cron expression has 5'],
    ['cron "@daily"', 'cron "@daily": 1 field: a cron expression has 5'],
    ['cron "0 25 * * *"', 'cron "0 25 * * *": the hour must be 0–23'],
    ['cron "60 * * * *"', 'cron "60 * * * *": the minute must be 0–59'],
    ['cron "* * 32 * *"', 'cron "* * 32 * *": the day of the month must be 1–31'],
    ['cron "* * * 13 *"', 'cron "* * * 13 *": the month must be 1–12 (or JAN–DEC)'],
    ['cron "* * * * 8"', 'cron "* * * * 8": the day of the week must be 0–7'],
    ['cron "*/0 * * * *"', 'cron "*/0 * * * *": syntax error, illegal stepping: 0'],
    ['cron "a b c d e"', 'cron "a b c d e": configuration entry'],
    ['cron "0 0 30 2 *"', 'cron "0 0 30 2 *": it never runs (no such date comes again)'],
    [
      "daily 18:00 tz Mars/Olympus",
      "daily 18:00 tz Mars/Olympus: tz Mars/Olympus is not a time zone this machine knows: give an IANA name, e.g. tz Europe/Berlin",
    ],
  ])("%j", (text, said) => {
    expect(refusal(text)).toContain(said);
  });
});

describe("across daylight saving changes (Europe/Berlin: 29 March 02:00 → 03:00, 25 October 03:00 → 02:00)", () => {
  const berlin = (text: string) => parseWhen(`${text} tz Europe/Berlin`, NOW, "UTC");

  it("a daily time the clock skips runs when it has jumped (03:00 CEST), then as before", () => {
    expect(runs(berlin("daily 02:30"), 3, new Date("2026-03-27T12:00:00Z"))).toEqual([
      "2026-03-28T01:30:00.000Z", // 02:30 CET
      "2026-03-29T01:00:00.000Z", // 02:30 does not exist: 03:00 CEST
      "2026-03-30T00:30:00.000Z", // 02:30 CEST
    ]);
  });

  it("a daily time the clock repeats runs once", () => {
    expect(runs(berlin("daily 02:30"), 2, new Date("2026-10-24T12:00:00Z"))).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST, the first pass
      "2026-10-26T01:30:00.000Z", // 02:30 CET
    ]);
  });

  it("the wall-clock time stays the same across the change: 09:00 is 08:00 UTC, then 07:00 UTC", () => {
    expect(runs(berlin("weekdays 09:00"), 2, new Date("2026-03-27T12:00:00Z"))).toEqual([
      "2026-03-30T07:00:00.000Z", // Monday after the change
      "2026-03-31T07:00:00.000Z",
    ]);
    expect(runs(berlin("daily 09:00"), 2, new Date("2026-03-28T12:00:00Z"))).toEqual([
      "2026-03-29T07:00:00.000Z",
      "2026-03-30T07:00:00.000Z",
    ]);
  });

  it("an interval cron runs on both passes of the repeated hour", () => {
    expect(runs(berlin('cron "*/30 * * * *"'), 6, new Date("2026-10-24T23:50:00Z"))).toEqual([
      "2026-10-25T00:00:00.000Z", // 02:00 CEST
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T01:00:00.000Z", // 02:00 CET
      "2026-10-25T01:30:00.000Z", // 02:30 CET
      "2026-10-25T02:00:00.000Z", // 03:00 CET
      "2026-10-25T02:30:00.000Z",
    ]);
  });

  it("every N is elapsed time: an hour apart whatever the clocks say", () => {
    const anchor = new Date("2026-03-29T00:00:00Z");
    const t = runs(berlin("every 1h"), 4, anchor, anchor).map(Date.parse);
    expect(t.slice(1).map((x, i) => x - t[i]!)).toEqual([3600_000, 3600_000, 3600_000]);
  });

  it("the same in New York (8 March: 02:00 → 03:00)", () => {
    const ny = parseWhen("weekdays 09:00 tz America/New_York", NOW, "UTC");
    expect(runs(ny, 2, new Date("2026-03-06T12:00:00Z"))).toEqual([
      "2026-03-06T14:00:00.000Z", // Friday, EST
      "2026-03-09T13:00:00.000Z", // Monday, EDT
    ]);
  });
});
