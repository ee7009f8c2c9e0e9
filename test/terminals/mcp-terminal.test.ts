/**
 * `roost mcp` for a terminal agent (docs/agents.md): started, as Claude Code or Codex would start it
 * from their own MCP configuration, with the environment of a terminal job roost runs; it speaks
 * for that job on roost's socket (`speak_for`) and the job's row stays its screen's. Driven by the
 * official MCP client, under a real daemon. And `speak_for`'s own rules, on a raw connection.
 * `npm run build` first.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenOf } from "../helpers/board.js";
import { CLI, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { untilRow } from "../helpers/jobs.js";
import { callTool as call, mcpClient } from "../helpers/mcp.js";
import { procEnv } from "../helpers/processes.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let hub: RawClient;

beforeAll(async () => {
  // `sleep`: a terminal agent whose screen says nothing; its row is read from it all the same. It
  // reads messages, as the agent CLIs' profiles say (a peer's send is typed into it).
  d = await startDaemon({
    config: { agentProfiles: { quiet: { command: ["sleep", "600"], messages: true } } },
  });
  hub = await d.client();
}, 30_000);
afterAll(async () => {
  await d?.cleanup();
});

/** A running terminal job, and the environment roost gave it. */
async function terminalJob(name: string): Promise<{ id: string; env: Record<string, string> }> {
  const { job } = await hub.ok("dispatch", { profile: "quiet", name });
  const row = await untilRow(hub, job.id, "running", (r) => r.life === "running" && r.pid);
  await tokenOf(hub, job.id);
  return { id: job.id, env: procEnv(row.pid) };
}

/** `roost mcp` started with the job's identity in its environment, as the agent's MCP configuration would. */
function mcpAs(env: Record<string, string>): Promise<Client> {
  const only = ["PATH", "HOME", "ROOST_JOB_ID", "ROOST_JOB_TOKEN", "ROOST_SOCKET"];
  const passed = Object.fromEntries(only.filter((k) => env[k]).map((k) => [k, env[k]!]));
  return mcpClient(process.execPath, [CLI, "mcp"], passed);
}

describe("roost mcp in a terminal agent's environment", () => {
  it("acts as its job: peers marks it, a claim on the board is its, a send comes from it; its row stays a terminal one", async () => {
    const alice = await terminalJob("alice");
    const bob = await terminalJob("bob");
    const client = await mcpAs(alice.env);
    try {
      const peers = await call(client, "roost_peers");
      expect(peers.isError, peers.text).toBe(false);
      expect(peers.text).toMatch(new RegExp(`${alice.id} "alice" \\(quiet\\).*\\[you\\]`));
      expect(peers.text).toContain(`${bob.id} "bob"`);

      const added = await call(client, "roost_tasks", { action: "add", title: "write the docs" });
      expect(added.isError, added.text).toBe(false);
      const { tasks } = await hub.ok("task", { action: "list" });
      const task = tasks.find((t: any) => t.title === "write the docs");
      expect(task.by).toEqual({ who: "alice", whoId: alice.id });
      const claimed = await call(client, "roost_tasks", { action: "claim", id: task.id });
      expect(claimed.isError, claimed.text).toBe(false);
      const after = (await hub.ok("task", { action: "list" })).tasks.find((t: any) => t.id === task.id);
      expect(after).toMatchObject({ state: "claimed", owner: { id: alice.id, name: "alice" } });

      const sent = await call(client, "roost_send", { to: "bob", text: "the docs are mine" });
      expect(sent.isError, sent.text).toBe(false);
      expect(JSON.parse(sent.text)).toMatchObject({ to: { id: bob.id, name: "bob" } });
      const { events } = await hub.ok("events", { id: bob.id });
      expect(events.find((e: any) => e.kind === "message")).toMatchObject({ who: "alice", whoId: alice.id });

      // It never reported: the row is still read from the screen, and no agent is connected.
      const row = (await hub.ok("list", { id: alice.id })).rows[0];
      expect(row).toMatchObject({ kind: "terminal", connected: false });

      // Once the job has ended, its token speaks for it no more: a tool error with the code.
      await hub.ok("stop", { id: alice.id });
      const ended = await call(client, "roost_peers");
      expect(ended.isError).toBe(true);
      expect(ended.text).toContain("(unauthorized)");
      expect(ended.text).toContain(`${alice.id} has ended`);
    } finally {
      await client.close();
    }
  });
});

describe("roost mcp for the concierge", () => {
  it("adds the concierge's own tools for the concierge's job alone; they act as the concierge", async () => {
    const status = await hub.ok("concierge", { action: "on", launch: { profile: "quiet", cwd: "/tmp" } });
    const row = await untilRow(hub, status.id, "running", (r) => r.life === "running" && r.pid);
    await tokenOf(hub, status.id);
    const client = await mcpAs(procEnv(row.pid));
    const plain = await mcpAs((await terminalJob("erin")).env);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "roost_peers",
          "roost_tasks",
          "roost_concierge_say",
          "roost_concierge_suggest",
          "roost_concierge_reply",
          "roost_concierge_policy",
          "roost_concierge_order",
          "roost_events",
        ]),
      );
      // The policy at its start (act: false) allows no act: spawning and acting are not listed.
      for (const denied of ["roost_spawn", "roost_concierge_act"]) expect(names).not.toContain(denied);
      expect((await plain.listTools()).tools.map((t) => t.name)).not.toContain("roost_concierge_say");

      const said = await call(client, "roost_concierge_say", { kind: "need", text: "j9 wants a decision" });
      expect(said).toEqual({ text: "said", isError: false });
      const { events } = await hub.ok("events", {});
      expect(events.at(-1)).toMatchObject({
        kind: "concierge",
        why: "need",
        text: "j9 wants a decision",
        who: "concierge",
        whoId: status.id,
      });
      const policy = await call(client, "roost_concierge_policy");
      expect(JSON.parse(policy.text)).toMatchObject({ answer: "never", act: false });
      // The hub allows acting: from the concierge's next call on, its list has the acting tools.
      await hub.ok("concierge", { action: "act", act: true });
      await call(client, "roost_concierge_policy");
      const now = (await client.listTools()).tools.map((t) => t.name);
      expect(now).toEqual(expect.arrayContaining(["roost_spawn", "roost_concierge_act"]));
      await hub.ok("concierge", { action: "act", act: false });
      await call(client, "roost_concierge_policy");
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("roost_spawn");
      const bad = await call(client, "roost_concierge_say", { kind: "shout", text: "x" });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
      await plain.close();
      await hub.ok("concierge", { action: "off" });
    }
  });
});

describe("speak_for", () => {
  it("needs the job's own token, a job that runs, and a connection that speaks for no other", async () => {
    const carol = await terminalJob("carol");
    const dave = await terminalJob("dave");
    const c = await d.client();
    expect(await c.request("speak_for", { id: carol.id, token: "x".repeat(32) })).toMatchObject({
      ok: false,
      code: "unauthorized",
    });
    expect(await c.request("peers", {})).toMatchObject({ ok: false, code: "unsupported" }); // still a hub's
    await c.ok("speak_for", { id: carol.id, token: carol.env.ROOST_JOB_TOKEN });
    expect((await c.ok("peers", {})).peers.find((p: any) => p.self)).toMatchObject({ id: carol.id });
    const other = await c.request("speak_for", { id: dave.id, token: dave.env.ROOST_JOB_TOKEN });
    expect(other).toMatchObject({ ok: false, code: "bad_request" });
    expect(other.error).toContain(`this connection speaks for ${carol.id}`);
    // A session's connection: the hub's ops are refused on it.
    expect(await c.request("dispatch", { profile: "quiet" })).toMatchObject({
      ok: false,
      code: "unsupported",
    });
    await hub.ok("stop", { id: dave.id });
    const fresh = await d.client();
    const ended = await fresh.request("speak_for", { id: dave.id, token: dave.env.ROOST_JOB_TOKEN });
    expect(ended).toMatchObject({ ok: false, code: "unauthorized" });
    expect(ended.error).toContain("has ended");
    c.close();
    fresh.close();
  });
});
