/**
 * Times as every face says them, so the CLI and the hub read alike: a schedule's run on the clock
 * of its time zone, and how long until a time.
 */

/** Made once per zone: an Intl.DateTimeFormat is slow to make and a list may show hundreds. */
const formats = new Map<string, Intl.DateTimeFormat>();

function zonedFormat(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone: timeZone || undefined,
      weekday: "short",
      day: "numeric",
      month: "short",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** "Tue 10 Mar 18:00" as a clock in `timeZone` reads it (a schedule's runs are in its zone). */
export function zonedClock(iso: string, timeZone: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const parts = zonedFormat(timeZone).formatToParts(at);
  const part = (type: string) => parts.find((x) => x.type === type)?.value ?? "";
  return `${part("weekday")} ${part("day")} ${part("month")} ${part("hour")}:${part("minute")}`;
}

/**
 * "40s", "5m", "1h54m", "3h", "2d": a span of `s` seconds, in the unit that reads it best; from
 * one hour to two days with its minutes too, when there are any ("3h" was 3h59m, which misled).
 * `gap` goes between a number and its unit ("1 h 54 m", as the hub writes its "3 m ago").
 */
export function span(s: number, gap = ""): string {
  if (s < 60) return `${s}${gap}s`;
  if (s < 3600) return `${Math.floor(s / 60)}${gap}m`;
  if (s < 48 * 3600) {
    const m = Math.floor(s / 60) % 60;
    return `${Math.floor(s / 3600)}${gap}h${m ? `${gap ? " " : ""}${m}${gap}m` : ""}`;
  }
  return `${Math.floor(s / 86400)}${gap}d`;
}

/**
 * "in 40s", "in 5m", "in 1h54m", "in 2d": how long until `iso` (a time past is "in 0s"). `gap`
 * goes between the number and its unit ("in 3 h", as the hub writes its "3 m ago").
 */
export function dueIn(iso: string, now = Date.now(), gap = ""): string {
  const s = Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000));
  if (Number.isNaN(s)) return "";
  return `in ${span(s, gap)}`;
}
