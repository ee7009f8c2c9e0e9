/**
 * The clock (server/core/clock.ts: one timer for every due thing, time injectable) and what a due
 * schedule does (server/core/schedules/schedule-plan.ts), on a fake clock that the test moves: days pass in
 * no time. Each rule of docs/protocol.md, "Schedules", by a test named after it: a restart between
 * two runs, runs missed while down under each `missed` rule, the still-running skip.
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../sdk/ts/protocol/index.js";
import { Clock, testTime } from "../../../server/core/clock.js";
import { dueRuns, stepsFor } from "../../../server/core/schedules/schedule-plan.js";
import { parseWhen } from "../../../server/core/schedules/when.js";
import { FakeTime } from "../../helpers/fake-time.js";

const T0 = "2026-03-02T08:00:00.000Z";
const at = (iso: string) => new Date(iso);
const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

describe("the clock", () => {
  it("has one timer for every due thing, armed for the soonest, and fires each at its time", () => {
    const time = new FakeTime(Date.parse(T0));
    const clock = new Clock(time);
    const fired: string[] = [];
    const fire = (key: string) => (now: Date) => fired.push(`${key}@${now.toISOString()}`);
    clock.set("c", at("2026-03-02T08:30:00Z"), fire("c"));
    clock.set("a", at("2026-03-02T08:10:00Z"), fire("a"));
    clock.set("b", at("2026-03-02T08:20:00Z"), fire("b"));
    expect(time.waiting).toBe(1);
    expect(clock.timers).toBe(1);
    clock.set("b", null, fire("b")); // no longer due
    time.advance(3600_000);
    expect(fired).toEqual(["a@2026-03-02T08:10:00.000Z", "c@2026-03-02T08:30:00.000Z"]);
    expect(time.waiting).toBe(0);
    expect(clock.timers).toBe(0);
  });

  it("a thing due in the past fires at once; one set again from its own firing is armed for then", () => {
    const time = new FakeTime(Date.parse(T0));
    const clock = new Clock(time);
    let n = 0;
    const every10m = (now: Date) => {
      n++;
      clock.set("x", new Date(now.getTime() + 600_000), every10m);
    };
    clock.set("x", at("2026-03-02T07:00:00Z"), every10m);
    time.advance(0);
    expect(n).toBe(1);
    time.advance(3600_000);
    expect(n).toBe(7);
    expect(time.waiting).toBe(1);
  });

  it("a thing set to its own time keeps the timer as it is", () => {
    const time = new FakeTime(Date.parse(T0));
    const clock = new Clock(time);
    clock.set("a", at("2026-03-02T09:00:00Z"), () => {});
    clock.set("a", at("2026-03-02T09:00:00Z"), () => {});
    clock.set("b", at("2026-03-02T10:00:00Z"), () => {});
    expect(time.asked).toBe(1);
    clock.close();
    expect(time.waiting).toBe(0);
  });

  it("ROOST_TEST_CLOCK's source starts at its time and runs `rate` times as fast", () => {
    let real = 1_000_000;
    const source = testTime(Date.parse(T0), 60, () => real);
    expect(new Date(source.now()).toISOString()).toBe(T0);
    real += 1000; // a real second
    expect(new Date(source.now()).toISOString()).toBe("2026-03-02T08:01:00.000Z");
  });
});

describe("a due schedule (schedule-plan.ts)", () => {
  const hourly = parseWhen("every 1h", at(T0), "UTC");
  const anchor = at(T0);
  const plan = (nextAt: string, now: string) => dueRuns(hourly, anchor, at(nextAt), at(now));

  it("runs when its time comes, and its next run is the next on its grid", () => {
    const due = plan("2026-03-02T09:00:00Z", "2026-03-02T09:00:00.004Z");
    expect([iso(due.now), due.missed, iso(due.nextAt)]).toEqual([
      "2026-03-02T09:00:00.000Z",
      null,
      "2026-03-02T10:00:00.000Z",
    ]);
    expect(stepsFor(due, "skip", null)).toEqual([{ kind: "start", at: at("2026-03-02T09:00:00Z") }]);
  });

  it("a restart between two runs neither loses nor doubles a run: the kept next run stands", () => {
    // Down at 09:10, back at 09:40: nothing is due, the next run is still 10:00 (not 10:40).
    const back = plan("2026-03-02T10:00:00Z", "2026-03-02T09:40:00Z");
    expect([back.now, back.missed, iso(back.nextAt)]).toEqual([null, null, "2026-03-02T10:00:00.000Z"]);
    expect(stepsFor(back, "skip", null)).toEqual([]);
    // 10:00 runs once; asked again at 10:00:30 with the next run it kept, nothing more.
    const ran = plan("2026-03-02T10:00:00Z", "2026-03-02T10:00:00Z");
    expect(stepsFor(ran, "skip", null)).toHaveLength(1);
    expect(stepsFor(plan(iso(ran.nextAt)!, "2026-03-02T10:00:30Z"), "skip", null)).toEqual([]);
  });

  it("a run at most a minute late (the daemon restarting at its time) is run, not missed", () => {
    const due = plan("2026-03-02T09:00:00Z", "2026-03-02T09:00:59Z");
    expect([iso(due.now), due.missed]).toEqual(["2026-03-02T09:00:00.000Z", null]);
    const late = plan("2026-03-02T09:00:00Z", "2026-03-02T09:01:01Z");
    expect([late.now, late.missed?.count]).toEqual([null, 1]);
  });

  it('runs missed while down, `missed: "skip"`: one skipped run saying how many', () => {
    const due = plan("2026-03-02T09:00:00Z", "2026-03-02T11:30:00Z");
    expect(due.missed).toEqual({ count: 3, more: false, last: at("2026-03-02T11:00:00Z") });
    expect(iso(due.nextAt)).toBe("2026-03-02T12:00:00.000Z");
    expect(stepsFor(due, "skip", null)).toEqual([
      {
        kind: "skip",
        at: at("2026-03-02T11:00:00Z"),
        job: null,
        why: "3 runs missed while roost was not running",
      },
    ]);
  });

  it('runs missed while down, `missed: "once"`: one job for them all', () => {
    const due = plan("2026-03-02T09:00:00Z", "2026-03-02T11:30:00Z");
    expect(stepsFor(due, "once", null)).toEqual([
      {
        kind: "start",
        at: at("2026-03-02T11:00:00Z"),
        why: "one job for 3 runs: 3 runs missed while roost was not running",
      },
    ]);
  });

  it("runs missed and one due now: skip says the missed and runs the one due; once starts one for all", () => {
    const due = plan("2026-03-02T09:00:00Z", "2026-03-02T11:00:20Z");
    expect(iso(due.now)).toBe("2026-03-02T11:00:00.000Z");
    expect(due.missed).toEqual({ count: 2, more: false, last: at("2026-03-02T10:00:00Z") });
    expect(stepsFor(due, "skip", null)).toEqual([
      {
        kind: "skip",
        at: at("2026-03-02T10:00:00Z"),
        job: null,
        why: "2 runs missed while roost was not running",
      },
      { kind: "start", at: at("2026-03-02T11:00:00Z") },
    ]);
    expect(stepsFor(due, "once", null)).toEqual([
      {
        kind: "start",
        at: at("2026-03-02T11:00:00Z"),
        why: "one job for 3 runs: 2 runs missed while roost was not running",
      },
    ]);
  });

  it("a run whose previous job still runs is skipped, still running", () => {
    const due = plan("2026-03-02T09:00:00Z", "2026-03-02T09:00:00Z");
    expect(stepsFor(due, "skip", "j7")).toEqual([
      { kind: "skip", at: at("2026-03-02T09:00:00Z"), job: "j7", why: "still running" },
    ]);
    const missed = plan("2026-03-02T09:00:00Z", "2026-03-02T10:30:00Z");
    expect(stepsFor(missed, "once", "j7")).toEqual([
      {
        kind: "skip",
        at: at("2026-03-02T10:00:00Z"),
        job: "j7",
        why: "still running; 2 runs missed while roost was not running",
      },
    ]);
  });

  it(`counts runs missed up to ${LIMITS.missedCounted}`, () => {
    const minutely = parseWhen("every 1m", at(T0), "UTC");
    const due = dueRuns(minutely, anchor, at("2026-03-02T08:01:00Z"), at("2026-03-04T08:00:30Z"));
    expect(due.missed).toMatchObject({ count: LIMITS.missedCounted, more: true });
    // 08:00 is on time (30 s late), so the last missed is the one before it.
    expect([iso(due.now), iso(due.missed!.last)]).toEqual([
      "2026-03-04T08:00:00.000Z",
      "2026-03-04T07:59:00.000Z",
    ]);
    expect(stepsFor(due, "skip", null)[0]).toMatchObject({
      why: `${LIMITS.missedCounted} or more runs missed while roost was not running`,
    });
  });
});

describe("a schedule on the fake clock across a daylight saving change", () => {
  it("daily 09:00 in Berlin runs at 08:00 UTC, then at 07:00 UTC after 29 March, once a day", () => {
    const time = new FakeTime(Date.parse("2026-03-26T12:00:00Z"));
    const clock = new Clock(time);
    const when = parseWhen("daily 09:00 tz Europe/Berlin", clock.now(), "UTC");
    const anchor = clock.now();
    const ran: string[] = [];
    // What core/schedules/schedules.ts does with a due run: the plan's steps, then the next run armed.
    const due = (nextAt: Date) => (now: Date) => {
      const d = dueRuns(when, anchor, nextAt, now);
      for (const s of stepsFor(d, "skip", null)) ran.push(`${s.kind} ${s.at.toISOString()}`);
      clock.set("s1", d.nextAt, due(d.nextAt!));
    };
    const first = when.next(clock.now(), anchor)!;
    clock.set("s1", first, due(first));
    time.to("2026-04-01T00:00:00Z");
    expect(ran).toEqual([
      "start 2026-03-27T08:00:00.000Z",
      "start 2026-03-28T08:00:00.000Z",
      "start 2026-03-29T07:00:00.000Z",
      "start 2026-03-30T07:00:00.000Z",
      "start 2026-03-31T07:00:00.000Z",
    ]);
    expect(time.waiting).toBe(1);
  });
});
