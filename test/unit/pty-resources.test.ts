/** The pty host's reading of /proc for a job's resources (server/pty/resources.ts), on fixture text. */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { groupByJob, type ProcStat, parsePss, parseStat, ResourcePass } from "../../server/pty/resources.js";

// A real line of /proc/<pid>/stat (a node process), its name with a space and parentheses in it.
const STAT =
  "4242 (node (x) y) S 4200 4242 4200 34816 4242 4194304 2829 0 0 0 153 27 0 0 20 0 11 0 " +
  "123456 1090039808 51200 18446744073709551615 1 1 0 0 0 0 0 4096 134234626 0 0 0 17 3 0 0 0 0 0";

const ROLLUP = `55d0c0a00000-7ffd4d1f3000 ---p 00000000 00:00 0                          [rollup]
Rss:              204812 kB
Pss:              201330 kB
Pss_Dirty:        200100 kB
Pss_Anon:         200096 kB
Shared_Clean:       4432 kB
`;

describe("parseStat", () => {
  it("reads pid, parent, session, CPU ticks and resident pages after the command's name", () => {
    expect(parseStat(STAT)).toEqual({
      pid: 4242,
      ppid: 4200,
      session: 4200,
      ticks: 153 + 27,
      rssPages: 51200,
      zombie: false,
    });
  });

  it("says a zombie is one", () => {
    expect(parseStat(STAT.replace(") S ", ") Z "))?.zombie).toBe(true);
  });

  it("refuses what is not a stat line", () => {
    expect(parseStat("")).toBeNull();
    expect(parseStat("12 (short) S 1 2 3")).toBeNull();
    expect(parseStat("no parentheses here at all")).toBeNull();
  });
});

describe("parsePss", () => {
  it("reads the Pss line in bytes, not Pss_Dirty or Pss_Anon", () => {
    expect(parsePss(ROLLUP)).toBe(201330 * 1024);
  });
  it("is null without one", () => {
    expect(parsePss("Rss: 12 kB\n")).toBeNull();
  });
});

const p = (pid: number, ppid: number, session: number, ticks = 0, rssPages = 0): ProcStat => ({
  pid,
  ppid,
  session,
  ticks,
  rssPages,
  zombie: false,
});

describe("groupByJob", () => {
  it("takes the job's session, and sessions its processes started, and nothing else", () => {
    const stats = [
      p(1, 0, 1), // init
      p(100, 1, 100), // job a, its leader
      p(101, 100, 100), // a command in a's session (a group of its own: the same session)
      p(200, 101, 200), // started by 101 in a session of its own (setsid): still a's
      p(201, 200, 200),
      p(300, 1, 300), // job b
      p(400, 1, 400), // someone else's session, a child of init
      p(401, 400, 400),
    ];
    const groups = groupByJob(stats, [
      { jobId: "a", pid: 100 },
      { jobId: "b", pid: 300 },
    ]);
    expect(groups.get("a")?.map((s) => s.pid)).toEqual([100, 101, 200, 201]);
    expect(groups.get("b")?.map((s) => s.pid)).toEqual([300]);
    expect([...groups.keys()].sort()).toEqual(["a", "b"]);
  });
});

describe("ResourcePass", () => {
  it("reads this process's own session as a job: its memory, its CPU, PSS on the first pass", () => {
    const pass = new ResourcePass();
    const own = parseStat(fs.readFileSync("/proc/self/stat", "latin1"))!;
    const [first] = pass.take([{ jobId: "me", pid: own.session }]);
    expect(first!.procs).toBeGreaterThanOrEqual(1);
    expect(first!.rss).toBeGreaterThan(10e6);
    expect(first!.pss).toBeGreaterThan(1e6);
    expect(first!.cpu).toBe(0); // nothing to compare with yet
    // Burn until the kernel has counted 50 ms of this process's CPU (5 clock ticks), however
    // little of a loaded machine's time it is given: a fixed wall time could burn none of it.
    const burn = () => {
      const from = process.cpuUsage();
      const spent = () => {
        const u = process.cpuUsage(from);
        return (u.user + u.system) / 1000;
      };
      while (spent() < 50) {}
    };
    // The session is the test run's: a process of it that ends meanwhile (another test's) takes
    // its ticks along, and that pass says 0. A pass of the next few (not the sixth) sees the rise.
    let second = first!;
    for (let tries = 0; tries < 4 && !(second.cpu > 0); tries++) {
      burn();
      second = pass.take([{ jobId: "me", pid: own.session }])[0]!;
      expect(second.pss).toBeNull(); // read every sixth pass only
    }
    expect(second.cpuSeconds).toBeGreaterThan(0);
    expect(second.cpu).toBeGreaterThan(0);
  });

  it("says nothing of a job that has no process", () => {
    const [none] = new ResourcePass().take([{ jobId: "gone", pid: 999_999_999 }]);
    expect(none).toEqual({
      jobId: "gone",
      pid: 999_999_999,
      cpu: 0,
      cpuSeconds: 0,
      rss: 0,
      pss: 0,
      procs: 0,
    });
  });
});
