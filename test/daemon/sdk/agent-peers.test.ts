/**
 * pi-roost/agent's peer ops and items against a real daemon: the peer-ops suite
 * (peer-ops-suite.ts) on its test agent (test/fixtures/sdk-agent.mjs on the BUILT client); and a
 * foreground session that registers, and registers again after a daemon restart. `npm run build`
 * first.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Item, type Reply, RoostAgent } from "../../../sdk/ts/agent/index.js";
import { FIXTURES, ROOT, until } from "../../helpers/daemon.js";
import { row, untilRow } from "../../helpers/jobs.js";
import { describePeerOps } from "../../helpers/peer-ops-suite.js";
import { call, type ScriptedClient, scriptedDaemonPerTest } from "../../helpers/scripted-agents.js";

/** test/fixtures/sdk-agent.mjs, on the built client. */
const CLIENT: ScriptedClient = {
  name: "pi-roost/agent",
  handlers: { item: "onItem", reply: "onReply" },
  command: [process.execPath, path.join(FIXTURES, "sdk-agent.mjs")],
  itemsEnv: { AGENT_ITEMS: "1" },
  // The fixture says "steer" too.
  capabilities: {
    items: ["report", "replies", "agent-items", "steer"],
    plain: ["report", "replies", "steer"],
  },
  losesAck: { env: { AGENT_ITEMS: "1" }, text: "lose-ack" },
};

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, "dist/sdk/ts/agent/index.js")))
    throw new Error("build first: npm run build");
});

describePeerOps(CLIENT);

describe("pi-roost/agent: a foreground session (register)", () => {
  const start = scriptedDaemonPerTest(CLIENT);
  const foreground: RoostAgent[] = [];
  afterEach(async () => {
    await Promise.all(foreground.splice(0).map((a) => a.close({ timeoutMs: 500 })));
  });

  it("registers, reports, takes an item, and registers again under the same id after a daemon restart", async () => {
    const { d, c, agent } = await start();
    const items: Item[] = [];
    const replies: Reply[] = [];
    const fg = RoostAgent.foreground({
      socket: d.socket,
      name: "fg-test",
      version: "1.0",
      onReply: (r) => {
        replies.push(r);
      },
      onItem: (i) => {
        items.push(i);
      },
      log: () => {},
    });
    foreground.push(fg);
    await expect(fg.peers()).rejects.toMatchObject({ code: "disconnected" }); // register first
    const { id, token } = await fg.register({ name: "fg-pi", session: "s-1", cwd: "/tmp", pid: process.pid });
    expect(fg.job).toMatchObject({ id, token });
    fg.report({ state: "working", summary: "on my own" });
    const r = await untilRow(c, id, "its report", (x) => x.summary === "on my own");
    expect(r).toMatchObject({ kind: "foreground", life: "running", name: "fg-pi", agentItems: true });
    expect(r.agent).toEqual({ name: "fg-test", version: "1.0" });
    expect(r.capabilities).toEqual(expect.arrayContaining(["agent-items"]));
    expect((await fg.peers()).find((p) => p.self)?.id).toBe(id);

    const a = await agent("items", "job");
    expect((await call(c, a, "send fg-pi hello foreground")).result).toEqual({
      outcome: "delivered",
      to: { id, name: "fg-pi" },
    });
    await until("the item", () => items.length === 1);
    expect(items[0]).toMatchObject({ kind: "message", from: { id: a.id, name: "job" }, relation: "peer" });
    await untilRow(c, id, "acked", (x) => x.pending === 0);
    expect((await fg.send(a.id, "hi back")).outcome).toBe("delivered");
    await until("the job got it", () => a.log("items.jsonl").length === 1);

    // A reply from the user waits for it, and comes on the connection it makes again.
    await d.restart("SIGKILL");
    const c2 = await d.client();
    await untilRow(c2, id, "registered again, connected", (x) => x.connected && x.life === "running");
    expect(fg.job.id).toBe(id);
    await c2.ok("reply", { id, text: "from the user" });
    await until("the reply", () => replies.length === 1);
    expect(replies[0]).toMatchObject({ text: "from the user", seq: 2 });
    expect((await row(c2, id)).kind).toBe("foreground");

    // An agent roost started cannot register; a reserved name is refused, and it may try again.
    const other = RoostAgent.foreground({
      socket: d.socket,
      name: "x",
      version: "1",
      onReply: () => {},
      log: () => {},
    });
    foreground.push(other);
    await expect(other.register({ name: "concierge" })).rejects.toMatchObject({ code: "bad_request" });
    expect((await other.register({ name: "second" })).id).not.toBe(id);
  });
});
