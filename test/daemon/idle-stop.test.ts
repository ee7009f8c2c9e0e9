/**
 * Idle agents put to sleep (docs/budgets.md, "Idle agents"), against a real daemon and real agent
 * processes: a job with an idleStop that rests that long is stopped with the reason idle, and
 * respawn wakes it; one at work or blocked is not; dispatch's idleStop wins over its profile's; a
 * bad one is refused, in roost.json at start and in `dispatch`; `stop` with reason idle sleeps one.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentProfile, daemonRefusal, isAlive, sleep } from "../helpers/daemon.js";
import { type DaemonHere, startDaemonHere } from "../helpers/daemon-here.js";
import { daemonEnv } from "../helpers/daemon-process.js";
import { rmTemp, row, tempDir, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: DaemonHere;
afterEach(async () => d?.cleanup());

const config = {
  idleStop: "2s",
  agentProfiles: {
    agent: agentProfile(),
    lazy: agentProfile({ idleStop: "1h" }),
    tireless: agentProfile({ idleStop: false }),
  },
};

const stopEntries = async (c: RawClient, id: string) =>
  ((await c.ok("events", {})).events as any[]).filter((e) => e.id === id && e.kind === "stop");

describe("idleStop", () => {
  it("a job that rests its idleStop is put to sleep, its row saying why; respawn wakes it; one at work or blocked is not", async () => {
    d = await startDaemonHere({ config });
    const c = await d.client();
    const cwd = d.env.HOME;
    const resting = (await c.ok("dispatch", { profile: "agent", task: "done", cwd })).job;
    const working = (await c.ok("dispatch", { profile: "agent", task: "busy with it", cwd })).job;
    const blocked = (await c.ok("dispatch", { profile: "agent", task: "block Go on?|yes,no", cwd })).job;
    const rested = await untilRow(c, resting.id, "resting", (r) => r.view === "your turn");
    const restedAt = Date.now();
    const pid = rested.pid;
    await untilRow(c, working.id, "at work", (r) => r.summary === "did: busy with it");
    await untilRow(c, blocked.id, "blocked", (r) => r.view === "blocked");

    const slept = await untilRow(c, resting.id, "put to sleep", (r) => r.life === "stopped", 10000);
    const after = Date.now() - restedAt;
    console.log(`idleStop 2s: stopped ${after} ms after the row was seen resting`);
    expect(slept).toMatchObject({ stopReason: "idle", view: "stopped", pid: null });
    // Not before its 2 s (the rest is seen a little after the row says it), nor much after.
    expect(after).toBeGreaterThan(1500);
    expect(after).toBeLessThan(4500);
    expect(isAlive(pid)).toBe(false);
    const [entry] = await stopEntries(c, resting.id);
    expect(entry.text).toContain("put to sleep after 2s with nothing to do");
    expect(entry.who).toBe("roost");

    // Twice the idleStop on: the one at work and the blocked one run still.
    await sleep(Math.max(0, 4000 - (Date.now() - restedAt)));
    expect(await row(c, working.id)).toMatchObject({ life: "running", view: "working", stopReason: null });
    expect(await row(c, blocked.id)).toMatchObject({ life: "running", view: "blocked", stopReason: null });

    // respawn wakes it, its stopReason cleared; its idleStop kept (fixed at dispatch): it sleeps again.
    const woken = (await c.ok("respawn", { id: resting.id })).job;
    expect(woken).toMatchObject({ life: "running", stopReason: null });
    await untilRow(c, resting.id, "running again", (r) => r.life === "running" && r.stopReason === null);
    // The test agent says it works once started (its task, handled, is not done again): told to rest.
    await c.ok("reply", { id: resting.id, text: "done" });
    await untilRow(c, resting.id, "asleep again", (r) => r.stopReason === "idle", 10000);
    expect(await stopEntries(c, resting.id)).toHaveLength(2);

    // A reply while it rests moves it: answered, the blocked one rests and then sleeps too.
    await c.ok("reply", { id: blocked.id, text: "done" });
    await untilRow(c, blocked.id, "asleep once answered", (r) => r.stopReason === "idle", 10000);
  });

  it("dispatch's idleStop wins over its profile's (and a profile's false over roost.json's)", async () => {
    d = await startDaemonHere({ config });
    const c = await d.client();
    const cwd = d.env.HOME;
    const soon = (await c.ok("dispatch", { profile: "lazy", task: "done", cwd, idleStop: "1s" })).job;
    const lazy = (await c.ok("dispatch", { profile: "lazy", task: "done", cwd })).job;
    const tireless = (await c.ok("dispatch", { profile: "tireless", task: "done", cwd })).job;
    const off = (await c.ok("dispatch", { profile: "agent", task: "done", cwd, idleStop: "off" })).job;
    for (const j of [soon, lazy, tireless, off])
      await untilRow(c, j.id, "resting", (r) => r.view === "your turn" || r.life === "stopped");
    await untilRow(c, soon.id, "put to sleep", (r) => r.stopReason === "idle", 10000);
    await sleep(3000); // past roost.json's 2 s
    for (const j of [lazy, tireless, off])
      expect(await row(c, j.id)).toMatchObject({ life: "running", view: "your turn", stopReason: null });
  });

  it("a bad idleStop is refused: in dispatch, saying what to write; in roost.json at start, with its path", async () => {
    d = await startDaemonHere({ config });
    const c = await d.client();
    for (const idleStop of ["2 hours", "0s", "40d", "", true]) {
      const r = await c.request("dispatch", { profile: "agent", task: "done", cwd: d.env.HOME, idleStop });
      expect(r, JSON.stringify(idleStop)).toMatchObject({ ok: false, code: "bad_request" });
    }
    const r = await c.request("dispatch", { profile: "agent", cwd: d.env.HOME, idleStop: "2 hours" });
    expect(r.error).toContain('idleStop: "2 hours" is not a duration: write a number and a unit');
    expect((await c.ok("list", {})).rows).toHaveLength(0); // refused before a row was made

    const home = tempDir();
    try {
      const write = (c: unknown) =>
        fs.writeFileSync(path.join(home, "roost.json"), JSON.stringify(c), { mode: 0o600 });
      write({ idleStop: "soon" });
      let refused = await daemonRefusal(daemonEnv(home));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('roost.json: idleStop: "soon" is not a duration');
      write({ agentProfiles: { a: agentProfile({ idleStop: "500ms" }) } });
      refused = await daemonRefusal(daemonEnv(home));
      expect(refused.stderr).toContain('agentProfiles.a.idleStop: "500ms" is not a duration');
      write({ agentProfiles: { a: agentProfile({ idleStop: "0m" }) } });
      refused = await daemonRefusal(daemonEnv(home));
      expect(refused.stderr).toContain('agentProfiles.a.idleStop: "0m": idleStop must be from 1s to 31d');
    } finally {
      rmTemp(home);
    }
  });

  it("stop with reason idle puts a running job to sleep; any other reason is refused", async () => {
    d = await startDaemonHere({ config: { agentProfiles: { agent: agentProfile() } } });
    const c = await d.client();
    const job = (await c.ok("dispatch", { profile: "agent", task: "busy", cwd: d.env.HOME })).job;
    await untilRow(c, job.id, "at work", (r) => r.summary === "did: busy");
    const bad = await c.request("stop", { id: job.id, reason: "budget" });
    expect(bad).toMatchObject({ ok: false, code: "bad_request" });
    await c.ok("stop", { id: job.id, reason: "idle" });
    expect(await row(c, job.id)).toMatchObject({ life: "stopped", stopReason: "idle" });
    const [entry] = await stopEntries(c, job.id);
    expect(entry.text).toContain("put to sleep");
    expect(entry.who).not.toBe("roost");
    await c.ok("respawn", { id: job.id });
    expect(await row(c, job.id)).toMatchObject({ life: "running", stopReason: null });
  });
});
