/**
 * Terminal jobs surviving what ends the processes around them, for real: the daemon killed -9
 * under running terminal and protocol jobs (all live again after its restart; an exit while it
 * was down taken once), and the pty host killed (its jobs failed with a reason, a new host for
 * new jobs, respawn, a kill while the next host starts, a reboot's worth of both). Each test has
 * a daemon of its own: each kills it or its pty host.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAlive, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { handled, rawAgent, row, untilGone, untilRow } from "../helpers/jobs.js";
import { killPtyHost } from "../helpers/processes.js";
import type { RawClient } from "../helpers/raw-client.js";
import { attachScreen } from "../helpers/screen.js";
import { dispatchIn, terminalConfig } from "../helpers/terminal-jobs.js";

let d: TestDaemon;
afterEach(async () => d?.cleanup());

/** A pty host the daemon has just started, from /proc (quicker than ps: caught before it listens). */
function startingHost(daemonPid: number, not: number): number | null {
  for (const name of fs.readdirSync("/proc")) {
    const pid = Number(name);
    if (!pid || pid === not) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === daemonPid && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("host.js"))
        return pid;
    } catch {} // gone meanwhile
  }
  return null;
}

async function setup() {
  d = await startDaemon({ config: terminalConfig });
  return d.client();
}

/** A job working in the home the harness gave the daemon's jobs. */
const dispatch = (c: RawClient, profile: string, task?: string) => dispatchIn(c, d.env.HOME!, profile, task);

describe("the daemon killed under running jobs", () => {
  it("kill -9 with three terminal jobs and one protocol job: all live again, same pids, screens, input, the next reply once", async () => {
    const c = await setup();
    const terms = [];
    for (let i = 0; i < 3; i++) terms.push(await dispatch(c, "bash", `echo terminal-${i}-ready`));
    const agent = await dispatch(c, "agent", "task one");
    for (const [i, t] of terms.entries())
      await untilRow(c, t.id, "ready", (r) => r.summary === `terminal-${i}-ready`);
    await until("the agent took its task", () => handled(d, agent.id).length === 1);
    await d.kill("SIGKILL");
    await d.start();
    const c2 = await d.client();
    for (const [i, t] of terms.entries()) {
      const r = await untilRow(c2, t.id, "live", (x) => x.life === "running");
      expect(r.pid).toBe(t.pid);
      const view = await attachScreen(c2, t.id);
      expect(view.text()).toContain(`terminal-${i}-ready`);
      await c2.ok("input", { id: t.id, data: `echo after-restart-${i}\r` });
      await until("input works", async () => (await view.catchUp()).text().includes(`after-restart-${i}`));
      await untilRow(c2, t.id, "the row follows the screen", (x) => x.summary === `after-restart-${i}`);
    }
    const ar = await untilRow(
      c2,
      agent.id,
      "the agent reconnected",
      (x) => x.connected && x.life === "running",
    );
    expect(ar.pid).toBe(agent.pid);
    await c2.ok("reply", { id: agent.id, text: "after the restart" });
    await until("reply 2 handled", () => handled(d, agent.id).length === 2);
    await untilRow(c2, agent.id, "acked", (x) => x.pending === 0);
    expect(handled(d, agent.id).map((h) => h.seq)).toEqual([1, 2]);
  });

  it("a job that exits with 3 while the daemon is down shows exit code 3 after the restart", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    await untilRow(c, job.id, "idle", (r) => r.status === "idle");
    // It exits with 3 once the file exit-now exists: the test makes it while the daemon is down.
    await c.ok("reply", { id: job.id, text: "while [ ! -e exit-now ]; do sleep 0.05; done; exit 3" });
    await untilRow(c, job.id, "typed", (r) => r.pending === 0);
    expect(isAlive(job.pid)).toBe(true);
    await d.kill("SIGKILL");
    expect(isAlive(job.pid)).toBe(true); // it ends while the daemon is down, not before
    fs.writeFileSync(path.join(d.env.HOME!, "exit-now"), "");
    await untilGone(job.pid);
    await d.start();
    const c2 = await d.client();
    const r = await row(c2, job.id);
    expect(r.life).toBe("exited");
    expect(r.exitCode).toBe(3);
    expect(r.state).toBe("failed");
    expect(r.error).toBe("exited with code 3");
    const exits = (await c2.ok("events", { id: job.id })).events.filter((e: any) => e.kind === "exit");
    expect(exits).toHaveLength(1); // taken once
  });
});

describe("the pty host killed", () => {
  it("its jobs are failed with a reason, a new host serves new jobs, respawn brings the old ones back", async () => {
    const c = await setup();
    const a = await dispatch(c, "bash", "echo first");
    await untilRow(c, a.id, "ran", (r) => r.summary === "first");
    const host = d.ptyHostPid()!;
    process.kill(host, "SIGKILL");
    const failed = await untilRow(c, a.id, "failed", (r) => r.life === "exited" && r.state === "failed");
    expect(failed.error).toMatch(/terminal is gone/);
    const b = await dispatch(c, "bash", "echo on-the-new-host");
    await untilRow(c, b.id, "ran", (r) => r.summary === "on-the-new-host");
    expect(d.ptyHostPid()).not.toBe(host);
    const { job } = await c.ok("respawn", { id: a.id });
    expect(job.life).toBe("running");
    await c.ok("reply", { id: a.id, text: "echo back-again" });
    await untilRow(c, a.id, "back", (r) => r.summary === "back-again");
  });

  it("a dispatch sent the moment it is killed starts on the next host (five times); the daemon's log says so each time", async () => {
    const c = await setup();
    // A daemon with no job starts no host: the first job's start does.
    expect(d.ptyHostPid()).toBeNull();
    const first = await dispatch(c, "bash", "echo round-0");
    await untilRow(c, first.id, "ran", (r) => r.summary === "round-0");
    for (let round = 1; round <= 5; round++) {
      const host = d.ptyHostPid()!;
      process.kill(host, "SIGKILL");
      // Sent at once: the daemon may not yet have seen its link to the host close.
      const job = await dispatch(c, "bash", `echo round-${round}`);
      const r = await untilRow(
        c,
        job.id,
        "ran or failed",
        (x) => x.summary === `round-${round}` || x.life === "exited",
      );
      expect(r).toMatchObject({ life: "running", summary: `round-${round}` });
      expect(d.ptyHostPid()).not.toBe(host);
    }
    await until("the log's lines", () => d.output.split("the pty host went away").length - 1 === 5);
  });

  it("killed again while the next one starts: the search for its jobs goes on; a reply meanwhile starts the job again", async () => {
    const c = await setup();
    const a = await dispatch(c, "bash", "echo first");
    await untilRow(c, a.id, "ran", (r) => r.summary === "first");
    const first = d.ptyHostPid()!;
    process.kill(first, "SIGKILL");
    // The next host (the daemon's child), killed before it listens: the daemon's connect to it
    // fails, and with it the search for the first host's jobs, which once left them "running".
    const second = await until("the next host started", () => startingHost(d.pid, first), 30_000);
    process.kill(second, "SIGKILL");
    // A reply now, before the search has gone through: to a job that has in fact ended. As any
    // reply to an ended job, it starts the job again (it once waited for the next reply).
    await c.ok("reply", { id: a.id, text: "echo in-the-gap" });
    const back = await untilRow(
      c,
      a.id,
      "the reply run on a new host",
      (r) => r.summary === "in-the-gap",
      30_000,
    );
    expect(back.life).toBe("running");
    expect([first, second]).not.toContain(d.ptyHostPid());
    // Where the faults were meant to land: the second host never listened, the search failed
    // once, and the reply came before the job was known to have ended.
    expect(fs.readFileSync(path.join(d.home, "pty.log"), "utf8")).not.toContain(
      `pty-host[${second}] listening`,
    );
    expect(d.output).toMatch(/pty host lost: pty host exited as it started.*looking for its jobs again/);
    const feed = (await c.ok("events", { id: a.id })).events.map((e: { kind: string; text: string }) =>
      e.kind === "reply" ? `reply ${e.text}` : e.kind,
    );
    const gap = feed.indexOf("reply echo in-the-gap");
    expect(feed.slice(gap)).toEqual(["reply echo in-the-gap", "exit", "start"]);
  });

  it("a connected agent whose job ended with it: its connection ends at once; a report on a new one is unauthorized", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    const { agent, token } = await rawAgent(d, c, job.id);
    process.kill(d.ptyHostPid()!, "SIGKILL");
    await untilRow(c, job.id, "failed with its host", (r) => r.life === "exited");
    await agent.closed; // not left waiting for a next report to learn it
    const again = await d.client();
    const r = await again.request("report", { id: job.id, token, report: { state: "working" } });
    expect(r).toMatchObject({ ok: false, code: "unauthorized" });
  });

  it("with its jobs while the daemon is down (a reboot): the daemon starts, the job is failed, its terminal gone; respawn works", async () => {
    const c = await setup();
    const a = await dispatch(c, "bash", "echo before-the-reboot");
    await untilRow(c, a.id, "ran", (r) => r.summary === "before-the-reboot");
    const host = d.ptyHostPid()!;
    await d.kill("SIGKILL");
    expect(isAlive(host)).toBe(true);
    expect(isAlive(a.pid)).toBe(true);
    // A reboot ends everything at once: the host is frozen first, so that it cannot write the
    // exit.json of the jobs killed next (it would, in the moment between, and the daemon would
    // then say how each exited, as it does for a job that exits while it is down).
    process.kill(host, "SIGSTOP");
    killPtyHost(d.home); // the jobs, then the host (SIGKILL ends a stopped process too)
    await untilGone(a.pid);
    await untilGone(host);
    expect(fs.existsSync(path.join(d.home, "jobs", a.id, "exit.json")), "an exit recorded").toBe(false);
    await d.start();
    const c2 = await d.client();
    const failed = await row(c2, a.id);
    expect(failed).toMatchObject({ life: "exited", state: "failed", pid: null });
    expect(failed.error).toMatch(/terminal is gone/);
    expect(d.ptyHostPid()).not.toBe(host);
    const { job } = await c2.ok("respawn", { id: a.id });
    expect(job.life).toBe("running");
    expect(job.pid).not.toBe(a.pid);
    await c2.ok("reply", { id: a.id, text: "echo after-the-reboot" });
    await untilRow(c2, a.id, "back", (r) => r.summary === "after-the-reboot");
  });
});
