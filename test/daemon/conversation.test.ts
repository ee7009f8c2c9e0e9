/**
 * A job's conversation as the daemon keeps it (docs/agents.md, "Resumed conversations"): what a
 * protocol agent says of its session in `hello` is kept with the job and given back at its next
 * start (`ROOST_AGENT_SESSION`); an agent CLI in a terminal begins anew, and its row says so; a
 * shell's row says nothing. Real daemon, real processes.
 */
import { describe, expect, it } from "vitest";
import { until } from "../helpers/daemon.js";
import {
  cleanDaemonPerTest,
  procEnv,
  rawAgent,
  row,
  silentProfile,
  startCleanDaemonHere,
  untilRow,
} from "../helpers/jobs.js";

const daemon = cleanDaemonPerTest(
  () => ({
    agentProfiles: {
      silent: silentProfile(),
      cli: { command: ["/bin/bash", "--norc", "--noprofile"], task: "type", messages: true },
    },
  }),
  startCleanDaemonHere,
);

describe("a protocol agent's conversation", () => {
  it("is kept as its hello says, and given back at its next start", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    const stranger = await d.client();
    const early = await stranger.request("hello", {
      protocol: 1,
      conversation: { session: "s-1", resumed: false },
    });
    expect(early).toMatchObject({ ok: false, code: "bad_request" });

    const { agent } = await rawAgent(d, c, job.id);
    expect((await row(c, job.id)).conversation).toBeNull(); // it has not said
    await agent.ok("hello", { protocol: 1, conversation: { session: "s-1", resumed: false } });
    const said = await row(c, job.id);
    expect(said).toMatchObject({ conversation: "new", capabilities: ["replies"] }); // the rest stays
    const { events } = await c.ok("events", { id: job.id });
    const entry = events.find((e: any) => e.text === "a new conversation (its agent's session s-1)");
    expect(entry).toMatchObject({ kind: "start", whoId: job.id }); // the agent's word, by its job

    await c.ok("respawn", { id: job.id });
    const again = await untilRow(c, job.id, "running again", (r) => r.life === "running" && r.pid);
    const env = await until("its environment", () => {
      const e = procEnv(again.pid);
      return e.ROOST_JOB_ID === job.id ? e : undefined;
    });
    expect(env.ROOST_AGENT_SESSION).toBe("s-1");
    expect(again.conversation).toBeNull(); // until its agent says
  });
});

describe("a terminal job's conversation", () => {
  it("is new at each start for an agent CLI, and not said for a shell", async () => {
    const { c, dir } = await daemon();
    const { job: cli } = await c.ok("dispatch", { profile: "cli", cwd: dir });
    const { job: shell } = await c.ok("dispatch", { profile: "shell", cwd: dir });
    expect((await untilRow(c, cli.id, "running", (r) => r.life === "running")).conversation).toBe("new");
    expect((await untilRow(c, shell.id, "running", (r) => r.life === "running")).conversation).toBeNull();
  });
});
