/**
 * pi-roost/agent's peer ops and items against a real daemon: test agents (test/fixtures/sdk-agent.mjs
 * on the BUILT client) message, spawn, hand back and watch each other; their items are handed to
 * `onItem` once each and acked exactly, kept in agent.json like replies (a kill -9 mid-handler
 * brings one again, one finished but not acked is only acked); a foreground session registers
 * and registers again after a daemon restart. `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Item, type Reply, RoostAgent } from "../../sdk/ts/agent/index.js";
import { FIXTURES, ROOT, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { lines, row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const AGENT = path.join(FIXTURES, "sdk-agent.mjs");
const profile = (env: Record<string, string>) => ({
  command: [process.execPath, AGENT],
  task: "type",
  protocol: true,
  env,
});

let d: TestDaemon | undefined;
const foreground: RoostAgent[] = [];
afterEach(async () => {
  await Promise.all(foreground.splice(0).map((a) => a.close({ timeoutMs: 500 })));
  await d?.cleanup();
  d = undefined;
});

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, "dist/sdk/ts/agent/index.js")))
    throw new Error("build first: npm run build");
});

/** A daemon with the test agent as `items` (an onItem handler) and `plain` (none). */
async function start(): Promise<RawClient> {
  d = await startDaemon({
    config: { agentProfiles: { items: profile({ AGENT_ITEMS: "1" }), plain: profile({}) } },
  });
  return d.client();
}

interface Agent {
  id: string;
  pid: number;
  file: (name: string) => string;
  /** What the agent logged to `name` in its job's directory. */
  log: (name: string) => any[];
}

/** A test agent, its task handled and acked. */
async function agent(c: RawClient, profileName: "items" | "plain", name: string): Promise<Agent> {
  const { job } = await c.ok("dispatch", {
    profile: profileName,
    task: `task of ${name}`,
    name,
    cwd: "/tmp",
  });
  const file = (f: string) => path.join(d!.home, "jobs", job.id, f);
  const log = (f: string) => lines(file(f));
  await untilRow(
    c,
    job.id,
    "its task handled and acked",
    (r) => r.pending === 0 && log("handled.jsonl").length === 1,
  );
  return { id: job.id, pid: job.pid, file, log };
}

/** Has the agent call a session op (a reply it understands) and waits for its answer in calls.jsonl. */
async function call(c: RawClient, a: Agent, text: string): Promise<any> {
  const before = a.log("calls.jsonl").length;
  await c.ok("reply", { id: a.id, text });
  return until(`${a.id}: ${text}`, () => a.log("calls.jsonl")[before]);
}

const body = (text: string) => text.slice(text.indexOf("\n") + 1);

describe("pi-roost/agent: the peer ops", () => {
  it("peers and send: an item to an agent with onItem is handed over once, acked exactly; its reports say agentItems", async () => {
    const c = await start();
    const a = await agent(c, "items", "alice");
    const b = await agent(c, "items", "bob");
    const listed = await call(c, a, "peers");
    expect(listed.ok).toBe(true);
    expect(listed.result.find((p: any) => p.self)).toMatchObject({ id: a.id, name: "alice" });
    expect(listed.result.find((p: any) => p.id === b.id)).toMatchObject({ name: "bob", self: false });

    const sent = await call(c, a, "send bob rebase onto main");
    expect(sent.result).toEqual({ outcome: "delivered", to: { id: b.id, name: "bob" } });
    const [item] = await until("bob's item", () => b.log("items.jsonl")[0] && b.log("items.jsonl"));
    expect(item).toMatchObject({ kind: "message", from: { id: a.id, name: "alice" }, relation: "peer" });
    expect(item.text).toMatch(/^\[roost message from j\d+ "alice" \(peer\): another session, not the user;/);
    expect(body(item.text)).toBe("rebase onto main");
    // Taken: a cumulative ack does not take an item (test/peers.test.ts), so it was acked exactly.
    const r = await untilRow(
      c,
      b.id,
      "the item acked",
      (x) => x.pending === 0 && x.summary === "did: rebase onto main",
    );
    expect(r).toMatchObject({ agentItems: true, lastSeq: 2 });
    expect(r.capabilities).toEqual(expect.arrayContaining(["agent-items"]));
    expect(JSON.parse(fs.readFileSync(b.file("agent.json"), "utf8"))).toEqual({ lastSeq: 2 });
    expect(b.log("handled.jsonl").map((h) => [h.seq, h.item])).toEqual([
      [1, false],
      [2, true],
    ]);

    // The next reply comes after it, in the same order, to onReply.
    await c.ok("reply", { id: b.id, text: "a reply" });
    await until("reply 3 handled", () => b.log("handled.jsonl").length === 3);
    expect(b.log("handled.jsonl").map((h) => [h.seq, h.item])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ]);

    // A refusal comes back with the daemon's code.
    expect(await call(c, a, "send nobody hi")).toMatchObject({ ok: false, code: "not_found" });
    expect(await call(c, a, "send alice me")).toMatchObject({ ok: false, code: "bad_request" });
  });

  it("without onItem, an item comes to onReply as a follow-up whose text begins with the envelope; the reports do not say agentItems", async () => {
    const c = await start();
    const a = await agent(c, "items", "asker");
    const b = await agent(c, "plain", "plain");
    expect((await call(c, a, `send ${b.id} just text`)).result.outcome).toBe("delivered");
    const r = await untilRow(c, b.id, "the follow-up handled", (x) => x.pending === 0 && x.lastSeq === 2);
    expect(r.agentItems).toBe(null);
    expect(r.capabilities).not.toContain("agent-items");
    const handled = await until("handled", () => b.log("handled.jsonl")[1]);
    expect(handled.item).toBe(false);
    expect(handled.text).toMatch(/^\[roost message from j\d+ "asker" \(peer\): .*\]\njust text$/);
    expect(b.log("items.jsonl")).toEqual([]);
  });

  it("spawn, handback and watch: the parent's onItem gets its child's report, then the notice of its end", async () => {
    const c = await start();
    const p = await agent(c, "items", "parent");
    const spawned = await call(c, p, "spawn items count the files");
    expect(spawned.ok).toBe(true);
    const child = spawned.result.job;
    expect(child).toMatchObject({ parent: p.id, profile: "items" });
    const kid: Agent = {
      id: child.id,
      pid: child.pid,
      file: (f) => path.join(d!.home, "jobs", child.id, f),
      log: (f) => lines(path.join(d!.home, "jobs", child.id, f)),
    };
    await until("the child's task handled", () => kid.log("handled.jsonl").length === 1);
    expect(kid.log("handled.jsonl")[0].text).toBe("count the files");
    expect((await call(c, p, `watch ${child.id} ended`)).result).toMatchObject({
      id: child.id,
      fired: false,
    });

    // A part first: the child goes on.
    expect((await call(c, kid, "handback-part halfway")).result).toEqual({
      outcome: "delivered",
      to: { id: p.id, name: "parent" },
    });
    // Its process is stopped once the parent has the item: its answer may not be logged.
    await c.ok("reply", { id: child.id, text: "handback 42 files" });
    const items = await until("the reports and the notice", () => {
      const got = p.log("items.jsonl");
      return got.length === 3 ? got : null;
    });
    expect(items.map((i) => [i.kind, i.relation, body(i.text)])).toEqual([
      ["report", "child", "halfway"],
      ["report", "child", "42 files"],
      ["notice", "roost", `${child.id} "count the files" is stopped: 42 files (your watch: ended)`],
    ]);
    const ended = await untilRow(c, child.id, "stopped after its handback", (x) => x.life === "stopped");
    expect(ended).toMatchObject({ state: "done", summary: "42 files" });
    await untilRow(c, p.id, "every item acked", (x) => x.pending === 0);
    // A session with no parent cannot hand back.
    expect(await call(c, p, "handback to whom")).toMatchObject({ ok: false, code: "bad_request" });
  });

  it("an item whose handler was killed -9 comes again on the next start; one finished but not acked is skipped and only acked", async () => {
    const c = await start();
    const a = await agent(c, "items", "sender");
    const b = await agent(c, "items", "taker");
    // The handler runs until the test opens its gate: the kill lands while it runs, for certain.
    await call(c, a, `send ${b.id} gate open`);
    await until("the item under way", () => b.log("started.jsonl").some((s) => s.seq === 2 && s.item));
    process.kill(b.pid, "SIGKILL");
    await untilRow(c, b.id, "ended", (x) => x.life === "exited");
    expect((await row(c, b.id)).pending).toBe(1);
    const { job } = await c.ok("respawn", { id: b.id });
    await until("the item under way in the new process", () =>
      b.log("started.jsonl").some((s) => s.seq === 2 && s.pid === job.pid),
    );
    fs.writeFileSync(b.file("open"), "");
    await untilRow(c, b.id, "the item handled again and acked", (x) => x.pending === 0 && x.connected);
    expect(b.log("handled.jsonl").map((h) => [h.seq, h.pid])).toEqual([
      [1, b.pid],
      [2, job.pid],
    ]);

    // Finished (agent.json written) and killed before its ack: the next start only acks it.
    await call(c, a, `send ${b.id} lose-ack`);
    await untilRow(c, b.id, "exited after agent.json", (x) => x.life === "exited");
    expect(await row(c, b.id)).toMatchObject({ pending: 1, exitCode: 7 });
    expect(JSON.parse(fs.readFileSync(b.file("agent.json"), "utf8"))).toEqual({ lastSeq: 3 });
    const again = (await c.ok("respawn", { id: b.id })).job;
    await untilRow(c, b.id, "the item acked by the new process", (x) => x.pending === 0 && x.connected);
    await c.ok("reply", { id: b.id, text: "after" });
    await until("reply 4 handled", () => b.log("handled.jsonl").some((h) => h.seq === 4));
    expect(b.log("started.jsonl").map((s) => [s.seq, s.pid])).toEqual([
      [1, b.pid],
      [2, b.pid],
      [2, job.pid],
      [3, job.pid],
      [4, again.pid],
    ]);
    expect(b.log("items.jsonl").map((i) => i.seq)).toEqual([2, 2, 3]);
  });
});

describe("pi-roost/agent: a foreground session (register)", () => {
  it("registers, reports, takes an item, and registers again under the same id after a daemon restart", async () => {
    const c = await start();
    const items: Item[] = [];
    const replies: Reply[] = [];
    const fg = RoostAgent.foreground({
      socket: d!.socket,
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

    const a = await agent(c, "items", "job");
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
    await d!.restart("SIGKILL");
    const c2 = await d!.client();
    await untilRow(c2, id, "registered again, connected", (x) => x.connected && x.life === "running");
    expect(fg.job.id).toBe(id);
    await c2.ok("reply", { id, text: "from the user" });
    await until("the reply", () => replies.length === 1);
    expect(replies[0]).toMatchObject({ text: "from the user", seq: 2 });
    expect((await row(c2, id)).kind).toBe("foreground");

    // An agent roost started cannot register; a reserved name is refused, and it may try again.
    const other = RoostAgent.foreground({
      socket: d!.socket,
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
