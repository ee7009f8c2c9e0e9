/**
 * The daemon started in the test's own process (test/helpers/daemon-here.ts, server/main.ts's
 * `startDaemon`): its jobs live in the environment it was started with, not in the process's, and
 * a restart on the same home keeps its jobs.
 */
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type DaemonHere, startDaemonHere } from "../helpers/daemon-here.js";
import { procEnv, silentProfile, untilRow } from "../helpers/jobs.js";

let d: DaemonHere | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

describe("a daemon in the test's process", () => {
  it("gives its jobs its own environment: its HOME (the default cwd), its variables, none of the process's own", async () => {
    // A variable of this process alone: a job that sees it inherited the process, not the daemon.
    process.env.ROOST_HERE_TEST_ONLY = "the test's";
    try {
      d = await startDaemonHere({
        config: { agentProfiles: { silent: silentProfile() } },
        env: { DAEMON_ONLY: "the daemon's" },
      });
      expect(d.env.HOME).not.toBe(process.env.HOME);
      const c = await d.client();
      const { job } = await c.ok("dispatch", { profile: "silent" });
      const r = await untilRow(c, job.id, "running with a pid", (x) => x.life === "running" && x.pid);
      const env = procEnv(r.pid);
      expect(env.HOME).toBe(d.env.HOME);
      expect(env.DAEMON_ONLY).toBe("the daemon's");
      expect(env.ROOST_HERE_TEST_ONLY).toBeUndefined();
      expect(env.ROOST_HOME).toBe(d.home);
      expect(fs.realpathSync(fs.readlinkSync(`/proc/${r.pid}/cwd`))).toBe(fs.realpathSync(d.env.HOME!));
      expect(r.cwd).toBe(d.env.HOME);
    } finally {
      delete process.env.ROOST_HERE_TEST_ONLY;
    }
  });

  it("restarts on the same home: its jobs still running, found again", async () => {
    d = await startDaemonHere({ config: { agentProfiles: { silent: silentProfile() } } });
    const c = await d.client();
    const { job } = await c.ok("dispatch", { profile: "silent" });
    const r = await untilRow(c, job.id, "running with a pid", (x) => x.life === "running" && x.pid);
    await d.restart();
    const again = await d.client();
    const back = await untilRow(again, job.id, "found again", (x) => x.life === "running");
    expect(back.pid).toBe(r.pid);
  });
});
