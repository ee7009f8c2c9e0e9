/**
 * The Python client's peer ops and items (sdk/python/roost_agent.py) against a real daemon:
 * scripted agents (test/fixtures/py_agent.py) message, spawn, hand back and watch each other; their
 * items go to `on_item` once each, acked exactly, kept in agent.json like replies (a kill -9
 * mid-handler brings one again, one finished but not acked is only acked); a foreground session
 * (test/fixtures/py_foreground.py, not started by roost) registers, and again after a restart.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURES, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { lines, row, tempDir, untilGone, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const PY_AGENT = path.join(FIXTURES, "py_agent.py");
const profile = (env: Record<string, string>) => ({
  command: ["python3", PY_AGENT],
  task: "type",
  protocol: true,
  env,
});

let d: TestDaemon | undefined;
const started: ChildProcess[] = [];
const temps: string[] = [];
afterEach(async () => {
  for (const p of started.splice(0)) if (p.exitCode === null && p.pid) process.kill(p.pid, "SIGKILL");
  await d?.cleanup();
  d = undefined;
  for (const t of temps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

/** A daemon with the Python test agent as `items` (on_item), `plain` (none) and `exits` (exits after saving seq 3). */
async function start(): Promise<RawClient> {
  d = await startDaemon({
    config: {
      agentProfiles: {
        items: profile({ PY_AGENT_ITEMS: "1" }),
        plain: profile({}),
        exits: profile({ PY_AGENT_ITEMS: "1", PY_AGENT_EXIT_AFTER_SEQ: "3" }),
      },
    },
  });
  return d.client();
}

interface Agent {
  id: string;
  pid: number;
  file: (name: string) => string;
  log: (name: string) => any[];
}

const agentOf = (job: { id: string; pid: number }): Agent => {
  const file = (f: string) => path.join(d!.home, "jobs", job.id, f);
  return { id: job.id, pid: job.pid, file, log: (f) => lines(file(f)) };
};

async function agent(c: RawClient, profileName: string, name: string): Promise<Agent> {
  const { job } = await c.ok("dispatch", {
    profile: profileName,
    task: `task of ${name}`,
    name,
    cwd: "/tmp",
  });
  const a = agentOf(job);
  await untilRow(
    c,
    a.id,
    "its task handled and acked",
    (r) => r.pending === 0 && a.log("handled.jsonl").length === 1,
  );
  return a;
}

async function call(c: RawClient, a: Agent, text: string): Promise<any> {
  const before = a.log("calls.jsonl").length;
  await c.ok("reply", { id: a.id, text });
  return until(`${a.id}: ${text}`, () => a.log("calls.jsonl")[before]);
}

const body = (text: string) => text.slice(text.indexOf("\n") + 1);

describe("the Python client: the peer ops", () => {
  it("peers and send: an item to an agent with on_item is handed over once, acked exactly; its reports say agentItems", async () => {
    const c = await start();
    const a = await agent(c, "items", "alice");
    const b = await agent(c, "items", "bob");
    const listed = await call(c, a, "peers");
    expect(listed.result.find((p: any) => p.self)).toMatchObject({ id: a.id, name: "alice" });
    expect(listed.result.find((p: any) => p.id === b.id)).toMatchObject({ name: "bob", self: false });

    expect((await call(c, a, "send bob rebase onto main")).result).toEqual({
      outcome: "delivered",
      to: { id: b.id, name: "bob" },
    });
    const [item] = await until("bob's item", () => b.log("items.jsonl")[0] && b.log("items.jsonl"));
    expect(item).toMatchObject({ kind: "message", from: { id: a.id, name: "alice" }, relation: "peer" });
    expect(item.text).toMatch(/^\[roost message from j\d+ "alice" \(peer\): another session, not the user;/);
    expect(body(item.text)).toBe("rebase onto main");
    const r = await untilRow(
      c,
      b.id,
      "the item acked",
      (x) => x.pending === 0 && x.summary === "did: rebase onto main",
    );
    expect(r).toMatchObject({ agentItems: true, lastSeq: 2 });
    expect(r.capabilities).toEqual(["report", "replies", "agent-items"]);
    expect(JSON.parse(fs.readFileSync(b.file("agent.json"), "utf8"))).toEqual({ lastSeq: 2 });
    await c.ok("reply", { id: b.id, text: "a reply" });
    await until("reply 3 handled", () => b.log("handled.jsonl").length === 3);
    expect(b.log("handled.jsonl").map((h) => [h.seq, h.item])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ]);
    expect(await call(c, a, "send nobody hi")).toMatchObject({ ok: false, code: "not_found" });
  });

  it("without on_item, an item comes to on_reply as a follow-up whose text begins with the envelope", async () => {
    const c = await start();
    const a = await agent(c, "items", "asker");
    const b = await agent(c, "plain", "plain");
    expect((await call(c, a, `send ${b.id} just text`)).result.outcome).toBe("delivered");
    const r = await untilRow(c, b.id, "the follow-up handled", (x) => x.pending === 0 && x.lastSeq === 2);
    expect(r.agentItems).toBe(null);
    expect(r.capabilities).toEqual(["report", "replies"]);
    const handled = await until("handled", () => b.log("handled.jsonl")[1]);
    expect(handled.item).toBe(false);
    expect(handled.text).toMatch(/^\[roost message from j\d+ "asker" \(peer\): .*\]\njust text$/);
  });

  it("spawn, handback and watch: the parent's on_item gets its child's reports, then the notice of its end", async () => {
    const c = await start();
    const p = await agent(c, "items", "parent");
    const spawned = await call(c, p, "spawn items count the files");
    expect(spawned.result.job).toMatchObject({ parent: p.id, profile: "items" });
    const kid = agentOf(spawned.result.job);
    await until("the child's task handled", () => kid.log("handled.jsonl").length === 1);
    expect(kid.log("handled.jsonl")[0].text).toBe("count the files");
    expect((await call(c, p, `watch ${kid.id} ended`)).result).toMatchObject({ id: kid.id, fired: false });
    expect((await call(c, kid, "handback-part halfway")).result).toEqual({
      outcome: "delivered",
      to: { id: p.id, name: "parent" },
    });
    await c.ok("reply", { id: kid.id, text: "handback 42 files" }); // then it is stopped
    const items = await until("the reports and the notice", () => {
      const got = p.log("items.jsonl");
      return got.length === 3 ? got : null;
    });
    expect(items.map((i) => [i.kind, i.relation, body(i.text)])).toEqual([
      ["report", "child", "halfway"],
      ["report", "child", "42 files"],
      ["notice", "roost", `${kid.id} "count the files" is stopped: 42 files (your watch: ended)`],
    ]);
    expect(await untilRow(c, kid.id, "stopped", (x) => x.life === "stopped")).toMatchObject({
      state: "done",
      summary: "42 files",
    });
    await untilRow(c, p.id, "every item acked", (x) => x.pending === 0);
  });

  it("an item whose handler was killed -9 comes again on the next start; one finished but not acked is skipped and only acked", async () => {
    const c = await start();
    const a = await agent(c, "items", "sender");
    const b = await agent(c, "exits", "taker");
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
    await untilRow(c, b.id, "handled again, acked", (x) => x.pending === 0 && x.connected);
    expect(b.log("handled.jsonl").map((h) => [h.seq, h.pid])).toEqual([
      [1, b.pid],
      [2, job.pid],
    ]);
    // Item 3: saved in agent.json, then the process exits (7) before its ack.
    await call(c, a, `send ${b.id} third`);
    await untilRow(c, b.id, "exited after agent.json", (x) => x.life === "exited");
    expect(await row(c, b.id)).toMatchObject({ pending: 1, exitCode: 7 });
    expect(JSON.parse(fs.readFileSync(b.file("agent.json"), "utf8"))).toEqual({ lastSeq: 3 });
    const again = (await c.ok("respawn", { id: b.id })).job;
    await untilRow(c, b.id, "acked by the new process", (x) => x.pending === 0 && x.connected);
    await c.ok("reply", { id: b.id, text: "after" });
    await until("reply 4 handled", () => b.log("handled.jsonl").some((h) => h.seq === 4));
    expect(b.log("started.jsonl").map((s) => [s.seq, s.pid])).toEqual([
      [1, b.pid],
      [2, b.pid],
      [2, job.pid],
      [3, job.pid],
      [4, again.pid],
    ]);
  });
});

describe("the Python client: a foreground session (register)", () => {
  it("registers, reports, answers an item with a message, and registers again under the same id after a daemon restart", async () => {
    const c = await start();
    const out = tempDir();
    temps.push(out);
    const log = (f: string) => lines(path.join(out, f));
    const fg = spawn("python3", [path.join(FIXTURES, "py_foreground.py"), d!.socket, out, "py-fg", "key-1"], {
      stdio: "ignore",
    });
    started.push(fg);
    const [{ id }] = await until("registered", () => log("registered.jsonl")[0] && log("registered.jsonl"));
    expect(await until("peers", () => log("peers.jsonl")[0])).toEqual({ self: [id] });
    const r = await untilRow(c, id, "its report", (x) => x.summary === "starting");
    expect(r).toMatchObject({ kind: "foreground", name: "py-fg", pid: fg.pid, agentItems: true });
    expect(r.agent).toEqual({ name: "py-fg", version: "1.0" });

    const a = await agent(c, "items", "job");
    expect((await call(c, a, "send py-fg hello")).result).toEqual({
      outcome: "delivered",
      to: { id, name: "py-fg" },
    });
    await until("its answer", () => a.log("items.jsonl")[0]);
    expect(body(a.log("items.jsonl")[0].text)).toBe("got your message");
    expect(log("items.jsonl")).toMatchObject([{ kind: "message", from: { id: a.id, name: "job" } }]);

    await d!.restart("SIGKILL");
    const c2 = await d!.client();
    await untilRow(c2, id, "registered again, connected", (x) => x.connected && x.life === "running");
    await c2.ok("reply", { id, text: "from the user" });
    await until("the reply", () => log("replies.jsonl")[0]);
    expect(log("replies.jsonl")).toEqual([{ seq: 2, text: "from the user" }]);
    expect(log("registered.jsonl")).toHaveLength(1); // the same process, the same id
    process.kill(fg.pid!, "SIGKILL");
    await untilGone(fg.pid!);
  });
});
