/** The time words the CLI and the hub share (sdk/ts/protocol/time-words.ts). */
import { describe, expect, it } from "vitest";
import { dueIn, span, zonedClock } from "../../../sdk/ts/protocol/time-words.js";
import { ago } from "../../../server/cli/format.js";

describe("time words", () => {
  it("zonedClock reads a time on the clock of the zone given, daylight saving included", () => {
    expect(zonedClock("2026-03-10T17:00:00Z", "Europe/Berlin")).toBe("Tue 10 Mar 18:00");
    expect(zonedClock("2026-07-10T17:00:00Z", "Europe/Berlin")).toBe("Fri 10 Jul 19:00");
    expect(zonedClock("2026-03-10T17:00:00Z", "America/New_York")).toBe("Tue 10 Mar 13:00");
    expect(zonedClock("not a time", "UTC")).toBe("not a time");
  });

  it("dueIn counts up to the next whole unit, with the gap asked for", () => {
    const now = Date.parse("2026-03-10T12:00:00Z");
    const at = (s: number) => new Date(now + s * 1000).toISOString();
    expect(dueIn(at(0.2), now)).toBe("in 1s");
    expect(dueIn(at(59), now)).toBe("in 59s");
    expect(dueIn(at(60), now)).toBe("in 1m");
    expect(dueIn(at(3 * 3600 + 5), now)).toBe("in 3h");
    expect(dueIn(at(47 * 3600), now, " ")).toBe("in 47 h");
    expect(dueIn(at(3 * 86400), now, " ")).toBe("in 3 d");
    expect(dueIn(at(-30), now)).toBe("in 0s");
    expect(dueIn("never", now)).toBe("");
  });

  it("a span over an hour says its minutes too: 1h54m, not 1h", () => {
    expect(span(59)).toBe("59s");
    expect(span(5 * 60 + 59)).toBe("5m");
    expect(span(3600)).toBe("1h");
    expect(span(3600 + 54 * 60 + 30)).toBe("1h54m");
    expect(span(47 * 3600 + 59 * 60, " ")).toBe("47 h 59 m");
    expect(span(2 * 86400 + 3600)).toBe("2d");
    const now = Date.parse("2026-03-10T12:00:00Z");
    expect(ago(new Date(now - (3600 + 54 * 60) * 1000).toISOString(), now)).toBe("1h54m");
    expect(dueIn(new Date(now + (2 * 3600 + 5 * 60) * 1000).toISOString(), now)).toBe("in 2h5m");
  });
});
