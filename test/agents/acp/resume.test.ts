/**
 * An ACP job started again goes on with its agent's session where the agent can load one
 * (docs/agents.md, "Resumed conversations"): the bridge says its session to roost (`hello`'s
 * `conversation`), roost gives it back at the next start, and the bridge asks `session/load`. And
 * an agent that dies takes its process group with it. The scripted ACP agent (on the official ACP
 * SDK) through the built bridge; `npm run build` first.
 */
import { describe, expect, it } from "vitest";
import { acpProfile, acpWorldPerTest, untilSettled } from "../../helpers/acp.js";
import { isAlive, until } from "../../helpers/daemon.js";
import { untilGone } from "../../helpers/jobs.js";

const world = acpWorldPerTest({ profiles: { acpl: acpProfile({ env: { ACP_LOAD_SESSION: "1" } }) } });

describe("an ACP job started again", () => {
  it("loads its session where its agent can (session/load): the agent has what it was told", async () => {
    const w = await world();
    const { id, work } = await w.dispatch("say noted heron", { profile: "acpl" });
    const first = await w.until(id, "settled, its session said", (r) => r.state === "done" && r.conversation);
    expect(first.conversation).toBe("new");
    const made = w.log(work).find((e) => e.sessionNew);
    process.kill(made.pid, "SIGKILL");
    await w.until(id, "ended", (r) => r.life === "exited");

    await w.c.ok("respawn", { id });
    const back = await w.until(id, "resumed", (r) => r.connected && r.conversation === "resumed");
    const load = await until("session/load asked", () => w.log(work).find((e) => e.load));
    expect(load.found).toBe(true);
    expect(load.pid).not.toBe(made.pid); // another process of the agent
    expect(back.summary ?? "").not.toMatch(/^earlier:/); // the replayed history is not the row's
    await w.c.ok("reply", { id, text: "recall" });
    const recalled = await w.until(id, "recalled", (r) => r.summary === "recall: say noted heron");
    expect(recalled.state).toBe("done");
    const { events } = await w.c.ok("events", { id });
    expect(events.map((e: any) => e.text)).toContain(
      `its conversation resumed (its agent's session ${load.load})`,
    );
  });

  it("begins a new session where its agent cannot load one", async () => {
    const w = await world();
    const { id, work } = await w.dispatch("say noted heron");
    const first = await w.until(id, "settled, its session said", (r) => r.state === "done" && r.conversation);
    expect(first.conversation).toBe("new");
    await w.c.ok("respawn", { id });
    await until("a second session", () => w.log(work).filter((e) => e.sessionNew).length === 2);
    const again = await w.until(id, "its new session said", (r) => r.connected && r.conversation === "new");
    await untilSettled(w, id);
    expect(again.life).toBe("running");
    expect(w.log(work).some((e) => e.load)).toBe(false);
  });
});

describe("an ACP agent killed with -9", () => {
  it("takes what it started with it: its process group is ended, the row says how many went", async () => {
    const w = await world();
    const { id, work } = await w.dispatch("child; say started");
    await untilSettled(w, id);
    const { child, pid } = w.log(work).find((e) => e.child);
    expect(isAlive(child)).toBe(true);
    process.kill(pid, "SIGKILL");
    await untilGone(child, 5000);
    const ended = await w.until(id, "ended", (r) => r.life === "exited");
    expect(ended.error).toBe("acp-agent was killed by SIGKILL; 1 leftover process ended");
  });
});
