/**
 * `roost mcp` (docs/agents.md): roost's tools as an MCP server, for the agent of an ACP job, acting
 * as that job. Driven here by the official MCP client, started exactly as the job's `session/new`
 * told its agent to start it (the scripted ACP agent logs what it was given), under a real daemon.
 * `npm run build` first.
 */
import { spawnSync } from "node:child_process";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { ACP_WAIT, type AcpWorld, acpWorldPerTest, untilSettled } from "../../helpers/acp.js";
import { CLI } from "../../helpers/daemon.js";
import { callTool as call, mcpClient } from "../../helpers/mcp.js";

const world = acpWorldPerTest();

/** An MCP client of the job's own `roost mcp`, as its agent was told to start it. */
async function mcpOf(w: AcpWorld, work: string): Promise<Client> {
  const server = w.log(work).find((e) => e.sessionNew).sessionNew.mcpServers[0];
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  for (const { name, value } of server.env) env[name] = value;
  return mcpClient(server.command, server.args, env, work);
}

describe("roost mcp", { timeout: 4 * ACP_WAIT }, () => {
  it("lists roost's tools, each with its input schema", async () => {
    const w = await world();
    const { id, work } = await w.dispatch("say ready", { name: "alice" });
    await untilSettled(w, id);
    const client = await mcpOf(w, work);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "roost_peers",
        "roost_send",
        "roost_spawn",
        "roost_handback",
        "roost_watch",
        "roost_tasks",
      ]);
      const tasks = tools.find((t) => t.name === "roost_tasks")!;
      expect(tasks.inputSchema).toMatchObject({
        type: "object",
        properties: { action: { enum: ["list", "add", "claim", "done", "release"] } },
        required: ["action"],
      });
      const peers = await call(client, "roost_peers");
      expect(peers).toMatchObject({ isError: false });
      expect(peers.text).toContain(`${id} "alice" (acpt) done: ready [you]`);
      // A watch on its own children: none at work, so it fires at once.
      const fanIn = await call(client, "roost_watch", { children: true, when: "handback" });
      expect(JSON.parse(fanIn.text)).toMatchObject({ id, when: "handback", fired: true, children: [] });
    } finally {
      await client.close();
    }
  });

  it("a send reaches another job, as the job whose agent called it", async () => {
    const w = await world();
    const alice = await w.dispatch("say ready", { name: "alice" });
    const bob = await w.dispatch("say ready", { name: "bob" });
    await untilSettled(w, alice.id);
    await untilSettled(w, bob.id);
    const client = await mcpOf(w, alice.work);
    try {
      const sent = await call(client, "roost_send", { to: "bob", text: "the tests are yours" });
      expect(sent.isError).toBe(false);
      expect(JSON.parse(sent.text)).toEqual({ outcome: "delivered", to: { id: bob.id, name: "bob" } });
      // bob's agent got it as a prompt, with roost's envelope naming alice.
      await w.until(
        bob.id,
        "the message answered",
        (r) => r.lastSeq === 2 && r.pending === 0 && r.state === "done",
      );
      const prompt = w
        .log(bob.work)
        .filter((e) => e.prompt && !e.stop)
        .at(-1).prompt as string;
      expect(prompt).toMatch(new RegExp(`^\\[roost message from ${alice.id} "alice" \\(peer\\)`));
      expect(prompt.endsWith("\nthe tests are yours")).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("a claim on the board is the job's; a refusal is a tool error with roost's code", async () => {
    const w = await world();
    const alice = await w.dispatch("say ready", { name: "alice" });
    await untilSettled(w, alice.id);
    const client = await mcpOf(w, alice.work);
    try {
      const added = await call(client, "roost_tasks", { action: "add", title: "fix the flaky test" });
      expect(added).toEqual({
        isError: false,
        text: '#1 open "fix the flaky test"\n\nThe board:\n#1 open "fix the flaky test"',
      });
      const claimed = await call(client, "roost_tasks", { action: "claim", id: 1 });
      expect(claimed.isError).toBe(false);
      expect(claimed.text.split("\n")[0]).toBe(`#1 claimed "fix the flaky test" by ${alice.id} "alice"`);
      const { tasks } = await w.c.ok("task", { action: "list" });
      expect(tasks).toEqual([
        expect.objectContaining({ id: 1, state: "claimed", owner: { id: alice.id, name: "alice" } }),
      ]);

      expect(await call(client, "roost_tasks", { action: "claim", id: 7 })).toEqual({
        isError: true,
        text: 'roost_tasks: roost refused (not_found): no task #7: task {action: "list"} lists the board',
      });
      expect(await call(client, "roost_send", { to: alice.id, text: "hi me" })).toEqual({
        isError: true,
        text: "roost_send: roost refused (bad_request): a session cannot send to itself",
      });
      // A claim without an id takes the next task the job may claim: none, saying why.
      expect(await call(client, "roost_tasks", { action: "claim" })).toEqual({
        isError: true,
        text: "roost_tasks: roost refused (not_found): no task you may claim now: 1 yours already",
      });
      // A call the tool cannot make says so without "roost refused".
      expect(await call(client, "roost_tasks", { action: "done" })).toEqual({
        isError: true,
        text: "roost_tasks: done needs an id",
      });
    } finally {
      await client.close();
    }
  });

  it("a spawn starts a child of the job, of its own profile unless said", async () => {
    const w = await world();
    const alice = await w.dispatch("say ready", { name: "alice" });
    await untilSettled(w, alice.id);
    const client = await mcpOf(w, alice.work);
    try {
      const spawned = await call(client, "roost_spawn", { task: "say child here", name: "kid" });
      expect(spawned.isError).toBe(false);
      const [, childId] = /^started (j\d+) "kid" \(acpt\)/.exec(spawned.text) ?? [];
      expect(childId).toBeDefined();
      const child = await untilSettled(w, childId!);
      expect(child).toMatchObject({
        parent: alice.id,
        profile: "acpt",
        summary: "child here",
        cwd: alice.work,
      });
    } finally {
      await client.close();
    }
  });

  it("run by hand, with no job's relay and no job in its environment, it says what it is for and exits 1", () => {
    const r = spawnSync(process.execPath, [CLI, "mcp"], {
      env: { PATH: process.env.PATH },
      encoding: "utf8",
      input: "",
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^roost: neither ROOST_TOOLS_SOCKET nor ROOST_JOB_ID is set: .*not by hand/);
  });
});
