/**
 * `roost schedule`: the built CLI against a real daemon: the list, add (its options and what it
 * refuses), when, pause and resume, run, rm; --json; a wrong command line's usage.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, needsBuild, ok, PLAIN_SHELL, roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { rmTemp, tempDir } from "../helpers/jobs.js";

beforeAll(needsBuild);

describe("roost schedule", () => {
  let d: TestDaemon;
  let dir: string;
  beforeAll(async () => {
    d = await startDaemon({
      env: PLAIN_SHELL,
      config: { agentProfiles: { inert: { command: ["sleep", "600"], task: "type", protocol: true } } },
    });
    dir = tempDir();
  });
  afterAll(async () => {
    await d?.cleanup();
    rmTemp(dir);
  });

  it("adds, lists, previews, pauses, resumes, runs and removes", async () => {
    const env = { ...d.env, COLUMNS: "200" };
    expect(await ok(["schedule"], env)).toBe(
      "no schedules yet: try `roost schedule add 'daily 18:00' shell 'npm test'`\n",
    );
    const added = await ok(
      [
        "schedule",
        "add",
        "daily 18:00 tz Europe/Berlin",
        "inert",
        "check",
        "the",
        "build",
        "--name",
        "nightly",
      ],
      env,
      dir,
    );
    expect(added).toMatch(
      /^added s1 "nightly": every day at 18:00, Europe\/Berlin time; next run \w{3} \d{1,2} \w{3} 18:00 Europe\/Berlin \(in (\d+[smhd])+\)\n$/,
    );
    const [one] = (await json(["schedule"], env)).schedules;
    expect(one).toMatchObject({
      id: "s1",
      name: "nightly",
      launch: { profile: "inert", task: "check the build", cwd: dir },
      missed: "skip",
    });
    const more = await json(
      [
        "schedule",
        "add",
        "every 2h",
        "inert",
        "tidy",
        "--missed",
        "once",
        "--job-name",
        "tidier",
        "--cwd",
        dir,
      ],
      env,
    );
    expect(more.schedule).toMatchObject({ id: "s2", missed: "once", launch: { name: "tidier" } });

    const table = (await ok(["schedule"], env)).split("\n");
    expect(table[0]).toMatch(/^ID +NAME +WHEN +NEXT +LAST +RUNS$/);
    expect(table[1]).toMatch(
      /^s1 +nightly +every day at 18:00, Europe\/Berlin time +\w{3} .* Europe\/Berlin \(in .+\) +- +inert: check the build$/,
    );
    expect(table[2]).toMatch(/^s2 +tidy +every 2 hours +.* UTC \(in (1h(\d+m)?|2h|\d+m)\) +- +inert: tidy$/);

    const when = await ok(["schedule", "when", "weekdays 09:00 tz America/New_York"], env);
    const [words, ...times] = when.trim().split("\n");
    expect(words).toBe("Monday to Friday at 09:00, America/New_York time");
    expect(times).toHaveLength(3);
    for (const t of times)
      expect(t).toMatch(
        /^ {2}(Mon|Tue|Wed|Thu|Fri) \d{1,2} \w{3} 09:00 America\/New_York \(in (\d+[smhd])+\)$/,
      );

    expect(await ok(["schedule", "pause", "s1", "s2"], env)).toBe("paused s1\npaused s2\n");
    expect((await ok(["schedule"], env)).split("\n")[1]).toMatch(/ paused /);
    expect(await ok(["schedule", "resume", "s1"], env)).toBe("resumed s1\n");

    const ran = await ok(["schedule", "run", "s2"], env);
    expect(ran).toMatch(/^started j1 \(inert\) from s2\n$/);
    expect((await ok(["schedule"], env)).split("\n")[2]).toMatch(/ started j1 \d+s ago /);
    expect((await json(["schedule", "run", "s1"], env)).job).toMatchObject({
      id: "j2",
      name: "check the build",
    });

    expect(await ok(["schedule", "rm", "s1", "s2"], env)).toBe("removed s1\nremoved s2\n");
    expect((await json(["schedule"], env)).schedules).toEqual([]);
  });

  it("says what is wrong: the daemon's refusals, and a wrong command line with its usage", async () => {
    const bad = await roost(["schedule", "add", "daily 25:00", "inert", "t"], d.env);
    expect([bad.code, bad.stderr]).toEqual([1, "roost: daily 25:00: the hour must be 00–23\n"]);
    const badJson = await roost(["schedule", "when", "every 10s", "--json"], d.env);
    expect(JSON.parse(badJson.stderr)).toMatchObject({ ok: false, code: "bad_request" });
    const gone = await roost(["schedule", "run", "s99"], d.env);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^roost: no schedule "s99"(: there are none|; the schedules are: .*)\n$/);
    for (const [args, said] of [
      [["schedule", "add", "every 1h", "inert"], "schedule add needs WHEN PROFILE TASK"],
      [
        ["schedule", "add", "every 1h", "inert", "t", "--missed", "twice"],
        '--missed is skip or once, not "twice"',
      ],
      [["schedule", "rm"], "schedule rm needs ID..."],
      [["schedule", "run"], "schedule run needs one ID"],
      [["schedule", "frobnicate"], 'no action "frobnicate": add, rm, pause, resume, run or when'],
    ] as const) {
      const r = await roost([...args], d.env);
      expect(r.code, args.join(" ")).toBe(64);
      expect(r.stderr).toContain(`roost: ${said}`);
      expect(r.stderr).toContain("usage: roost schedule [ACTION ARGS...]");
    }
  });

  it("--help says the actions, the vocabulary and examples", async () => {
    const help = await ok(["schedule", "--help"], d.env);
    expect(help).toContain("add WHEN PROFILE TASK...");
    expect(help).toContain('cron "m h dom mon dow"');
    expect(help).toContain("roost schedule add 'daily 18:00' shell 'npm test' --name nightly");
    expect(await ok(["help"], d.env)).toMatch(/\n {2}schedule +List the schedules/);
  });
});
