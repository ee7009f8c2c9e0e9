/**
 * A job's agent that crashes takes what it left with it (docs/design.md, "Jobs outlive the daemon"):
 * the pty host ends the processes of the job's group and session, and those its run's mark
 * (`ROOST_RUN`) is on that moved out of both (setsid, as pi's bash tool does), SIGTERM then SIGKILL;
 * the feed says how many went. Real processes in a real terminal under a real daemon.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive, until } from "../helpers/daemon.js";
import { cleanDaemonPerTest, startCleanDaemonHere, untilGone, untilRow } from "../helpers/jobs.js";

// Two children in the background: one in the job's group (ignoring the hangup its terminal's end
// sends), one in a session of its own; their pids in `pids`; then the job waits on them.
const SCRIPT = [
  "nohup sleep 120 >/dev/null 2>&1 & echo $! > pids.tmp",
  "setsid sleep 121 & echo $! >> pids.tmp",
  "mv pids.tmp pids",
  "wait",
].join("; ");

const daemon = cleanDaemonPerTest(
  () => ({
    agentProfiles: { spawner: { command: ["/bin/bash", "-c", SCRIPT], task: "argv" } },
  }),
  startCleanDaemonHere,
);

describe("a job's agent killed with -9", () => {
  it("leaves nothing running: its children, in its group or out of it, are ended, and the feed says so", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "spawner", cwd: dir });
    const running = await untilRow(c, job.id, "running", (r) => r.life === "running" && r.pid);
    const file = path.join(dir, "pids");
    await until("the children started", () => fs.existsSync(file));
    const children = fs.readFileSync(file, "utf8").trim().split("\n").map(Number);
    expect(children).toHaveLength(2);
    // Each is `sleep` by now (nohup has set its hangup aside before it runs sleep).
    const comm = (pid: number) => fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    for (const pid of children) await until(`${pid} runs sleep`, () => comm(pid) === "sleep");
    for (const pid of children) expect(isAlive(pid)).toBe(true);

    process.kill(running.pid, "SIGKILL");
    for (const pid of children) await untilGone(pid, 5000);
    const ended = await untilRow(c, job.id, "ended", (r) => r.life === "exited");
    expect(ended.exitCode).toBe(137);
    const entry = await until("the exit in the feed", async () => {
      const { events } = await c.ok("events", { id: job.id });
      return events.find((e: any) => e.kind === "exit");
    });
    expect(entry.text).toBe("exited with code 137; 2 leftover processes ended");
  });

  it("says nothing of leftovers when there were none", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "shell", cwd: dir, task: "exit 3" });
    await untilRow(c, job.id, "ended", (r) => r.life === "exited");
    const { events } = await c.ok("events", { id: job.id });
    expect(events.find((e: any) => e.kind === "exit")?.text).toBe("exited with code 3");
  });
});
