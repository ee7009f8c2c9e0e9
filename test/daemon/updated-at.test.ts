/**
 * A row's `updatedAt` is when its content last changed (docs/protocol.md, "A row"), against a real
 * daemon: not moved by a reorder, a pin, a viewer attaching and resizing, a daemon restart, nor a
 * report that says the same again; moved by what the agent says next.
 */
import { afterEach, describe, expect, it } from "vitest";
import { sleep, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { bashProfile, rawAgent, row, silentProfile, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { attachScreen } from "../helpers/screen.js";
import { quietSpellsPassed } from "../helpers/waits.js";

let d: TestDaemon;
afterEach(async () => d?.cleanup());

const config = {
  agentProfiles: {
    bash: bashProfile(),
    silent: silentProfile(),
  },
};

/**
 * The screens have said all they would of what came before: two quiet spells of `other` (a
 * second shell) have passed since (helpers/waits.ts).
 */
const settle = (c: RawClient, other: string) => quietSpellsPassed(c, other, 2);

/** Waits until the job is quiet and has said all it would (see settle), and gives its row. */
async function settled(c: RawClient, id: string, other: string) {
  await untilRow(c, id, "quiet", (r) => r.status === "idle" && r.pending === 0);
  await settle(c, other);
  return untilRow(c, id, "quiet", (r) => r.status === "idle");
}

describe("updatedAt", () => {
  it("a terminal job's: the same across reorder, pin, attach and resize, a daemon restart; moved by a new summary", async () => {
    d = await startDaemon({ config });
    const c = await d.client();
    const cwd = d.env.HOME;
    // A line wider than any size the viewers give it: it wraps differently at each.
    const task = `echo first-words-$(printf 'x%.0s' $(seq 1 150))`;
    const job = (await c.ok("dispatch", { profile: "bash", task, cwd })).job;
    const other = (await c.ok("dispatch", { profile: "bash", cwd })).job;
    await untilRow(c, job.id, "its task ran", (r) => r.summary?.startsWith("first-words-x"));
    const first = await settled(c, job.id, other.id);
    const at = first.updatedAt;

    await c.ok("reorder", { ids: [job.id, other.id] });
    await c.ok("reorder", { ids: [other.id, job.id] });
    await c.ok("pin", { id: job.id, pinned: true });
    expect(await row(c, job.id)).toMatchObject({ pinned: true, updatedAt: at });
    await c.ok("pin", { id: job.id, pinned: false });
    expect((await row(c, job.id)).updatedAt).toBe(at);

    // Opening the job's page: a viewer attaches at its size, resizes, and leaves.
    const viewer = await d.client();
    await attachScreen(viewer, job.id);
    await viewer.ok("resize", { id: job.id, cols: 44, rows: 20 });
    await settle(c, other.id);
    await viewer.ok("resize", { id: job.id, cols: 200, rows: 50 });
    await settle(c, other.id);
    await viewer.ok("detach", { id: job.id });
    viewer.close();
    expect(await settled(c, job.id, other.id)).toMatchObject({ summary: first.summary, updatedAt: at });

    await d.kill("SIGKILL");
    await d.start();
    const c2 = await d.client();
    await untilRow(c2, job.id, "running again", (r) => r.life === "running");
    expect(await settled(c2, job.id, other.id)).toMatchObject({ summary: first.summary, updatedAt: at });

    await c2.ok("reply", { id: job.id, text: "echo new-words" });
    const after = await untilRow(c2, job.id, "the new summary", (r) => r.summary === "new-words");
    expect(after.updatedAt > at).toBe(true);
  });

  it("a protocol job's: the same for a report that says the same, and its agent reconnecting; moved by a new summary", async () => {
    d = await startDaemon({ config });
    const hub = await d.client();
    const job = (await hub.ok("dispatch", { profile: "silent", cwd: d.env.HOME })).job;
    const { agent, token } = await rawAgent(d, hub, job.id);
    const report = { state: "working", summary: "raw agent" };
    const first = await untilRow(hub, job.id, "its report", (r) => r.kind === "protocol" && r.connected);
    await sleep(20);
    await agent.ok("report", { id: job.id, token, report });
    expect((await row(hub, job.id)).updatedAt).toBe(first.updatedAt);

    agent.close();
    await untilRow(hub, job.id, "disconnected", (r) => !r.connected);
    const again = await d.client();
    await again.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities: ["replies"] });
    await again.ok("report", { id: job.id, token, report });
    expect(await row(hub, job.id)).toMatchObject({ connected: true, updatedAt: first.updatedAt });

    await again.ok("report", { id: job.id, token, report: { ...report, summary: "something new" } });
    const after = await row(hub, job.id);
    expect(after.summary).toBe("something new");
    expect(after.updatedAt > first.updatedAt).toBe(true);
  });
});
