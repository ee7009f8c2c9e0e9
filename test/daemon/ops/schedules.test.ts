/**
 * Schedules (docs/protocol.md, "Schedules"; protocol.md, "Schedules") through a real daemon's
 * socket and HTTP face: each op, each refusal, the limit, the session's refusal, a read-only
 * token; and, with the daemon's clock set by ROOST_TEST_CLOCK (test only), an `every 1m` that
 * starts real jobs (and skips while its last one still runs), and restarts: between two runs,
 * and after hours away under each `missed` rule.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../../sdk/ts/protocol/index.js";
import { daemonRefusal, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { daemonEnv } from "../../helpers/daemon-process.js";
import { api } from "../../helpers/http.js";
import { procEnv, rmTemp, row, tempDir, untilRow } from "../../helpers/jobs.js";
import type { RawClient, Response } from "../../helpers/raw-client.js";

const INERT = { command: ["sleep", "600"], task: "type", protocol: true };
/** A job that ends at once, its task an argument it ignores. */
const QUICK = { command: ["true"], task: "argv" };
const PROFILES = { agentProfiles: { inert: INERT, quick: QUICK } };

function expectError(r: Response, code: string, said: string): void {
  expect(r.ok, JSON.stringify(r)).toBe(false);
  expect(r.code, JSON.stringify(r)).toBe(code);
  expect(r.error).toContain(said);
}

const scheduleOf = async (c: RawClient, id: string) =>
  (await c.ok("schedules")).schedules.find((s: any) => s.id === id);

describe("the ops, on a daemon with the real clock", () => {
  let d: TestDaemon;
  let c: RawClient;
  let dir: string;

  beforeAll(async () => {
    d = await startDaemon({ config: PROFILES });
    c = await d.client();
    dir = tempDir();
  });
  afterAll(async () => {
    await d?.cleanup();
    if (dir) rmTemp(dir);
  });
  afterEach(async () => {
    for (const s of (await c.ok("schedules")).schedules) await c.ok("schedule-rm", { id: s.id });
    for (const r of (await c.ok("list")).rows) await c.ok("rm", { id: r.id });
  });

  it("schedule-add keeps a launch on a clock; schedules lists it, its when in words and its next run", async () => {
    const before = Date.now();
    const { schedule } = await c.ok("schedule-add", {
      when: "every 30m",
      launch: { profile: "quick", task: "tidy the logs", cwd: dir },
    });
    expect(schedule).toMatchObject({
      id: "s1",
      name: "tidy the logs",
      when: "every 30m",
      words: "every 30 minutes",
      timeZone: "UTC",
      launch: { profile: "quick", task: "tidy the logs", cwd: dir },
      paused: false,
      missed: "skip",
      lastAt: null,
      lastJob: null,
      runs: [],
    });
    const next = Date.parse(schedule.nextAt);
    expect(next - Date.parse(schedule.createdAt)).toBe(30 * 60_000 - (Date.parse(schedule.createdAt) % 1000));
    expect(next).toBeGreaterThan(before);
    expect((await c.ok("schedules")).schedules).toEqual([schedule]);

    const named = await c.ok("schedule-add", {
      when: "weekdays 09:00 tz Europe/Berlin",
      launch: { profile: "inert", task: "standup notes", name: "standup" },
      name: "morning",
      missed: "once",
    });
    expect(named.schedule).toMatchObject({
      id: "s2",
      name: "morning",
      words: "Monday to Friday at 09:00, Europe/Berlin time",
      timeZone: "Europe/Berlin",
      launch: { profile: "inert", task: "standup notes", name: "standup" },
      missed: "once",
    });
    const { events } = await c.ok("events", { id: "s2" });
    expect(events.map((e: any) => [e.kind, e.who, e.text])).toEqual([
      [
        "schedule",
        "user",
        "morning: added: Monday to Friday at 09:00, Europe/Berlin time, inert: standup notes",
      ],
    ]);
  });

  it("schedule-when reads a when and gives its next runs, saving nothing", async () => {
    const r = await c.ok("schedule-when", { when: "daily 18:00 tz America/New_York", count: 2 });
    expect(r).toMatchObject({
      when: "daily 18:00 tz America/New_York",
      words: "every day at 18:00, America/New_York time",
      timeZone: "America/New_York",
    });
    expect(r.next).toHaveLength(2);
    expect(Date.parse(r.next[1]) - Date.parse(r.next[0])).toBe(86_400_000);
    expect((await c.ok("schedule-when", { when: "every 1h" })).next).toHaveLength(3);
    expectError(
      await c.request("schedule-when", { when: "daily 25:00" }),
      "bad_request",
      "daily 25:00: the hour must be 00–23",
    );
    expect((await c.ok("schedules")).schedules).toEqual([]);
  });

  it("schedule-pause: paused it has no next run; resumed, its next run is the first from now", async () => {
    const { schedule } = await c.ok("schedule-add", {
      when: "every 1h",
      launch: { profile: "quick", task: "t", cwd: dir },
    });
    expect(await c.ok("schedule-pause", { id: schedule.id, paused: true })).toEqual({});
    expect(await scheduleOf(c, schedule.id)).toMatchObject({ paused: true, nextAt: null });
    await c.ok("schedule-pause", { id: schedule.id, paused: false });
    const resumed = await scheduleOf(c, schedule.id);
    expect(resumed.paused).toBe(false);
    // On its own grid (an hour after it was made), not an hour after the resume.
    expect(resumed.nextAt).toBe(schedule.nextAt);
    const said = (await c.ok("events", { id: schedule.id })).events.map((e: any) => e.text);
    expect(said.slice(1)).toEqual(["t: paused", `t: resumed: next run ${schedule.nextAt}`]);
  });

  it("schedule-run starts a job now, as dispatch does, and keeps the run; its clock is not moved", async () => {
    const { schedule } = await c.ok("schedule-add", {
      when: "daily 03:00",
      launch: { profile: "inert", task: "look around", name: "looker", cwd: dir },
    });
    const { job } = await c.ok("schedule-run", { id: schedule.id });
    expect(job).toMatchObject({ profile: "inert", name: "looker", cwd: dir });
    await untilRow(c, job.id, "running", (r) => r.life === "running");
    const after = await scheduleOf(c, schedule.id);
    expect(after.runs).toEqual([{ at: after.lastAt, job: job.id, outcome: "started", why: "by hand" }]);
    expect([after.lastJob, after.nextAt]).toEqual([job.id, schedule.nextAt]);
    // The job's feed says the schedule started it; the schedule's names the job.
    const dispatched = (await c.ok("events", { id: job.id })).events.find((e: any) => e.kind === "dispatch");
    expect(dispatched).toMatchObject({ who: `schedule ${schedule.id}`, text: "inert: look around" });
    const own = (await c.ok("events", { id: schedule.id })).events.at(-1);
    expect(own).toMatchObject({
      kind: "schedule",
      who: "user",
      text: `look around: started ${job.id} (by hand)`,
    });
    // By hand it starts whatever runs: the still-running skip is the clock's.
    const again = await c.ok("schedule-run", { id: schedule.id });
    expect(again.job.id).not.toBe(job.id);
  });

  it("schedule-rm removes it, and the jobs it started stay", async () => {
    const { schedule } = await c.ok("schedule-add", {
      when: "every 2h",
      launch: { profile: "inert", task: "t", cwd: dir },
    });
    const { job } = await c.ok("schedule-run", { id: schedule.id });
    expect(await c.ok("schedule-rm", { id: schedule.id })).toEqual({});
    expect((await c.ok("schedules")).schedules).toEqual([]);
    expect((await row(c, job.id)).id).toBe(job.id);
    for (const op of ["schedule-rm", "schedule-run"])
      expectError(
        await c.request(op, { id: schedule.id }),
        "not_found",
        `no schedule "${schedule.id}": there are none`,
      );
    expectError(
      await c.request("schedule-pause", { id: "s999", paused: true }),
      "not_found",
      'no schedule "s999": there are none',
    );
  });

  it("refuses what cannot run, saying what was wrong, before anything is kept", async () => {
    const launch = { profile: "quick", task: "t", cwd: dir };
    const refusals: [unknown, string][] = [
      [{ when: "daily 25:00", launch }, "daily 25:00: the hour must be 00–23"],
      [{ when: "every 10s", launch }, "every 10s: at least every minute"],
      [{ when: "fortnightly", launch }, "fortnightly: not a form roost knows"],
      [{ when: 'cron "0 9 * *"', launch }, 'cron "0 9 * *": 4 fields'],
      [{ when: "daily 09:00 tz Nowhere/Atall", launch }, "tz Nowhere/Atall is not a time zone"],
      [{ when: "every 1h", launch: { ...launch, profile: "nope" } }, 'no profile "nope"; the profiles are: '],
      [
        { when: "every 1h", launch: { ...launch, cwd: "/no/such/dir" } },
        'cwd "/no/such/dir" is not a directory',
      ],
      [{ when: "every 1h", launch: { ...launch, name: "concierge" } }, "reserved for roost's own agent"],
      [{ when: "every 1h", launch, name: "\u0007" }, "name is empty once folded to one line"],
      [{ when: "every 1h", launch: { profile: "quick", task: "" } }, "schedule-add: "],
      [{ when: "every 1h", launch: { profile: "quick" } }, "schedule-add: "],
      [{ when: "every 1h", launch, missed: "twice" }, "schedule-add: "],
      [{ when: "", launch }, "schedule-add: "],
      [{ when: "x".repeat(LIMITS.scheduleWhen + 1), launch }, "schedule-add: "],
    ];
    for (const [args, said] of refusals)
      expectError(await c.request("schedule-add", args), "bad_request", said);
    expect((await c.ok("schedules")).schedules).toEqual([]);
  });

  it(`keeps at most ${LIMITS.schedules} (full)`, async () => {
    const launch = { profile: "quick", task: "t", cwd: dir };
    for (let i = 0; i < LIMITS.schedules; i++)
      await c.ok("schedule-add", { when: `every ${i + 1}h`, launch });
    expectError(
      await c.request("schedule-add", { when: "every 1h", launch }),
      "full",
      `there are ${LIMITS.schedules} schedules, the most roost keeps: remove one first`,
    );
    expect((await c.ok("schedules")).schedules).toHaveLength(LIMITS.schedules);
  });

  it("are the hub's: a session's connection is refused (unsupported)", async () => {
    const { job } = await c.ok("dispatch", { profile: "inert", task: "t", cwd: dir });
    const r = await untilRow(c, job.id, "running with a pid", (x) => x.life === "running" && x.pid);
    const token = await until("its token", () => procEnv(r.pid).ROOST_JOB_TOKEN);
    const agent = await d.client();
    await agent.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities: [] });
    await agent.ok("report", { id: job.id, token, report: { state: "working" } });
    for (const [op, args] of [
      ["schedules", {}],
      ["schedule-add", { when: "every 1h", launch: { profile: "quick", task: "t" } }],
      ["schedule-rm", { id: "s1" }],
      ["schedule-pause", { id: "s1", paused: true }],
      ["schedule-run", { id: "s1" }],
      ["schedule-when", { when: "every 1h" }],
    ] as const)
      expectError(await agent.request(op, args), "unsupported", `${op} is a hub op`);
  });

  it("over HTTP: a read-only token may list and preview (GET), never change", async () => {
    const { schedule } = await c.ok("schedule-add", {
      when: "every 1h",
      launch: { profile: "quick", task: "t", cwd: dir },
    });
    const made = await c.ok("token", { action: "create", name: "dash", readOnly: true });
    const secret = new URL(made.link).searchParams.get("token")!;
    const listed = await api(d, "schedules", {}, { token: secret, method: "GET" });
    expect(listed.body.result.schedules.map((s: any) => s.id)).toEqual([schedule.id]);
    const preview = await api(d, "schedule-when", { when: "daily 07:00" }, { token: secret, method: "GET" });
    expect(preview.body.result.words).toBe("every day at 07:00");
    for (const [op, args] of [
      ["schedule-add", { when: "every 1h", launch: { profile: "quick", task: "t" } }],
      ["schedule-rm", { id: schedule.id }],
      ["schedule-pause", { id: schedule.id, paused: true }],
      ["schedule-run", { id: schedule.id }],
    ] as const) {
      const res = await api(d, op, args, { token: secret });
      expect([res.status, res.body.code], op).toEqual([403, "policy"]);
    }
    // The owner's token changes them over HTTP as on the socket; a change is a POST.
    expect((await api(d, "schedule-pause", { id: schedule.id, paused: true })).body).toEqual({
      ok: true,
      result: {},
    });
    expect((await api(d, "schedule-rm", { id: schedule.id }, { method: "GET" })).body.code).toBe(
      "unsupported",
    );
    await c.ok("token", { action: "revoke", name: "dash" });
  });

  it("subscribers get a schedule event for each change (null once removed)", async () => {
    const sub = await d.client();
    await sub.ok("subscribe");
    const { schedule } = await c.ok("schedule-add", {
      when: "every 1h",
      launch: { profile: "quick", task: "t", cwd: dir },
    });
    const pushed = await sub.event((e) => e.event === "schedule" && e.id === schedule.id, "the added one");
    expect(pushed.schedule).toEqual(schedule);
    await c.ok("schedule-pause", { id: schedule.id, paused: true });
    await sub.event((e) => e.event === "schedule" && e.schedule?.paused === true, "the paused one");
    await c.ok("schedule-rm", { id: schedule.id });
    await sub.event(
      (e) => e.event === "schedule" && e.id === schedule.id && e.schedule === null,
      "the removal",
    );
  });
});

describe("on the daemon's test clock (ROOST_TEST_CLOCK)", () => {
  let d: TestDaemon | undefined;
  afterEach(async () => {
    await d?.cleanup();
    d = undefined;
  });

  it("every 1m starts a real job; a run while it still runs is skipped; once it ended, the next starts one", async () => {
    // 30 times as fast: a minute every 2 s.
    d = await startDaemon({ config: PROFILES, env: { ROOST_TEST_CLOCK: "rate=30" } });
    expect(d.output).toContain("ROOST_TEST_CLOCK is set (for tests only)");
    const c = await d.client();
    const { schedule } = await c.ok("schedule-add", {
      when: "every 1m",
      launch: { profile: "inert", task: "watch" },
    });
    const started = await until(
      "a run started a job",
      async () => (await scheduleOf(c, schedule.id)).runs.find((r: any) => r.outcome === "started"),
      60_000,
    );
    const job = await untilRow(c, started.job, "running", (r) => r.life === "running" && r.pid);
    expect(job).toMatchObject({ profile: "inert" });
    expect(started.at).toBe(
      new Date(
        Date.parse(schedule.createdAt) - (Date.parse(schedule.createdAt) % 1000) + 60_000,
      ).toISOString(),
    );
    const skipped = await until(
      "a run skipped",
      async () => (await scheduleOf(c, schedule.id)).runs.find((r: any) => r.outcome === "skipped"),
      60_000,
    );
    expect(skipped).toEqual({ at: skipped.at, job: job.id, outcome: "skipped", why: "still running" });
    await c.ok("stop", { id: job.id });
    const next = await until(
      "a second job",
      async () =>
        (await scheduleOf(c, schedule.id)).runs.find((r: any) => r.outcome === "started" && r.job !== job.id),
      60_000,
    );
    await untilRow(c, next.job, "running", (r) => r.life === "running");
    // Every run on the schedule's grid, a minute apart, none twice.
    const { runs } = await scheduleOf(c, schedule.id);
    const times = runs.map((r: any) => Date.parse(r.at));
    for (const [i, t] of times.entries()) if (i > 0) expect(t - times[i - 1]!).toBe(60_000);
    const texts = (await c.ok("events", { id: schedule.id })).events.map((e: any) => e.text);
    expect(texts).toContain(`watch: started ${job.id}`);
    expect(texts).toContain(`watch: skipped: still running (${job.id})`);
  });

  it("is read at start: one the daemon cannot read stops it (exit 2), having started nothing", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-test-"));
    try {
      const { code, stderr } = await daemonRefusal(daemonEnv(home, { ROOST_TEST_CLOCK: "at=yesterday" }));
      expect(code).toBe(2);
      expect(stderr).toContain(
        'roost: bad config: ROOST_TEST_CLOCK=at=yesterday: "at=yesterday" is not at=<ISO time> or rate=<n> (a test\'s clock; unset it)',
      );
      expect(fs.existsSync(path.join(home, "roost.sock"))).toBe(false);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("a restart between two runs neither loses nor doubles a run", async () => {
    const t0 = Date.parse("2026-03-02T08:00:00Z");
    const clockAt = (ms: number) => ({ ROOST_TEST_CLOCK: `at=${new Date(t0 + ms).toISOString()}` });
    d = await startDaemon({ config: PROFILES, env: clockAt(0) });
    const c1 = await d.client();
    const { schedule } = await c1.ok("schedule-add", {
      when: "every 1h",
      launch: { profile: "quick", task: "t" },
    });
    const hour = Date.parse(schedule.createdAt) + 3600_000 - (Date.parse(schedule.createdAt) % 1000);
    expect(schedule.nextAt).toBe(new Date(hour).toISOString());

    // Back half an hour later: nothing ran, the next run is where it was.
    Object.assign(d.env, clockAt(30 * 60_000));
    await d.restart();
    let c = await d.client();
    expect(await scheduleOf(c, schedule.id)).toMatchObject({ runs: [], nextAt: schedule.nextAt });

    // Back a moment before it: it runs once, on time.
    Object.assign(d.env, clockAt(hour - t0 - 1000));
    await d.restart();
    c = await d.client();
    const ran = await until("the run", async () => (await scheduleOf(c, schedule.id)).runs[0], 30_000);
    expect(ran).toMatchObject({ at: new Date(hour).toISOString(), outcome: "started" });
    expect((await scheduleOf(c, schedule.id)).nextAt).toBe(new Date(hour + 3600_000).toISOString());

    // Back 20 s after it: it does not run again.
    Object.assign(d.env, clockAt(hour - t0 + 20_000));
    await d.restart();
    c = await d.client();
    const after = await scheduleOf(c, schedule.id);
    // The same run (its job, `true`, has exited meanwhile: its end is recorded on it).
    expect(after.runs).toHaveLength(1);
    const { ended, ...same } = after.runs[0];
    const { ended: _, ...first } = ran;
    expect(same).toEqual(first);
    if (ended) expect(ended.how).toBe("exited");
    expect((await c.ok("list")).rows).toHaveLength(1);
  });

  it('runs missed while down: "skip" records one skipped run saying how many; "once" starts one job for them all', async () => {
    const t0 = Date.parse("2026-03-02T08:00:00Z");
    d = await startDaemon({
      config: PROFILES,
      env: { ROOST_TEST_CLOCK: `at=${new Date(t0).toISOString()}` },
    });
    let c = await d.client();
    const launch = { profile: "quick", task: "t" };
    const skip = (await c.ok("schedule-add", { when: "every 1h", launch, name: "skipper" })).schedule;
    const once = (await c.ok("schedule-add", { when: "every 1h", launch, name: "oncer", missed: "once" }))
      .schedule;
    // Down for three and a half hours: the runs at 09, 10 and 11 (and a bit) are missed.
    Object.assign(d.env, { ROOST_TEST_CLOCK: `at=${new Date(t0 + 3.5 * 3600_000).toISOString()}` });
    await d.restart();
    c = await d.client();
    const skipped = await until("skip's run", async () => (await scheduleOf(c, skip.id)).runs[0], 30_000);
    expect(skipped).toEqual({
      at: new Date(Date.parse(skip.nextAt) + 2 * 3600_000).toISOString(),
      job: null,
      outcome: "skipped",
      why: "3 runs missed while roost was not running",
    });
    const onceRun = await until("once's run", async () => (await scheduleOf(c, once.id)).runs[0], 30_000);
    expect(onceRun).toMatchObject({
      outcome: "started",
      why: "one job for 3 runs: 3 runs missed while roost was not running",
    });
    expect((await row(c, onceRun.job)).profile).toBe("quick");
    expect((await c.ok("list")).rows).toHaveLength(1);
    for (const s of [skip, once])
      expect((await scheduleOf(c, s.id)).nextAt).toBe(
        new Date(Date.parse(s.nextAt) + 3 * 3600_000).toISOString(),
      );
    const texts = (await c.ok("events", { limit: 20 })).events
      .filter((e: any) => e.kind === "schedule")
      .map((e: any) => e.text);
    expect(texts).toContain("skipper: skipped: 3 runs missed while roost was not running");
    expect(texts).toContain(
      `oncer: started ${onceRun.job} (one job for 3 runs: 3 runs missed while roost was not running)`,
    );
  });
});
