/**
 * Fan-in (docs/protocol.md, `watch` with `children`, and "Batches"), through the socket of a real
 * daemon: a parent's watch on its children fires once, after the last; its children's handbacks
 * reach an agent that takes batches as one delivery, with the notice; handbacks close together go
 * as one; each item stays saved on its own, so a delivery sent again (a reconnect, a kill -9)
 * brings them all once more, and one exact ack takes them all. Sessions are inert protocol jobs
 * spoken for by raw clients.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Item, RoostAgent } from "../../sdk/ts/agent/index.js";
import { ITEM_BATCHES } from "../../sdk/ts/protocol/index.js";
import { expectError, INERT, type Session, tokenOf } from "../helpers/board.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let hub: RawClient;

beforeAll(async () => {
  d = await startDaemon({ config: { agentProfiles: { inert: INERT } } });
  hub = await d.client();
});
afterAll(async () => d?.cleanup());
afterEach(async () => {
  const { rows } = await hub.ok("list");
  await Promise.all(rows.map((r: any) => hub.ok("rm", { id: r.id })));
});

/** A session on a connection of its own; `batches`: its hello says it takes several items at once. */
async function session(name: string, opts: { id?: string; batches?: boolean } = {}): Promise<Session> {
  const id = opts.id ?? (await hub.ok("dispatch", { profile: "inert", name })).job.id;
  const token = await tokenOf(hub, id);
  const c = await d.client();
  const capabilities = ["agent-items", ...(opts.batches === false ? [] : [ITEM_BATCHES])];
  await c.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities });
  await c.ok("report", { id, token, report: { state: "working", summary: name, agentItems: true } });
  return { id, token, c };
}

/** Children the parent spawns, each spoken for on a connection of its own. */
async function children(parent: Session, n: number): Promise<Session[]> {
  const kids: Session[] = [];
  for (let i = 1; i <= n; i++) {
    const { job } = await parent.c.ok("spawn", { profile: "inert", task: `part ${i}`, name: `kid${i}` });
    kids.push(await session(`kid${i}`, { id: job.id }));
  }
  return kids;
}

const deliveries = (s: Session) => s.c.events.filter((e) => e.event === "deliver" && e.id === s.id);
const delivery = (s: Session, n: number) =>
  s.c.waitFor(() => deliveries(s)[n - 1], `${s.id}'s delivery #${n}`);
const handback = (kid: Session, text: string) => kid.c.ok("handback", { text });

describe("watch {children: true}", () => {
  it("handback: one notice after the last child, its children's handbacks with it as one delivery; the row waits meanwhile", async () => {
    const p = await session("parent");
    const kids = await children(p, 3);
    const ids = kids.map((k) => k.id);
    expect(await p.c.ok("watch", { children: true, when: "handback" })).toEqual({
      id: p.id,
      name: "parent",
      when: "handback",
      fired: false,
      children: ids,
    });
    await p.c.ok("report", {
      id: p.id,
      token: p.token,
      report: { state: "done", summary: "fanned out", agentItems: true },
    });
    const waiting = await row(hub, p.id);
    expect(waiting).toMatchObject({ view: "waiting", waitingOn: ids });
    expect(waiting.watches).toEqual([
      { id: p.id, name: "its children", when: "handback", expiresAt: expect.any(String) },
    ]);

    expect((await handback(kids[0]!, "one: 3 files")).outcome).toBe("queued");
    await handback(kids[1]!, "two: 5 files");
    await p.c.ok("peers"); // answered after anything sent before it on this connection
    expect(deliveries(p)).toEqual([]);
    expect((await row(hub, p.id)).waitingOn).toEqual([ids[2]]);

    await handback(kids[2]!, "three: 8 files");
    const got = await delivery(p, 1);
    expect(got.items.map((i: any) => i.kind)).toEqual(["report", "report", "report", "notice"]);
    expect(got.items.slice(0, 3).map((i: any) => i.from.id)).toEqual(ids);
    expect(got).toMatchObject({ kind: "notice", relation: "roost", seq: got.items[3].seq });
    for (const text of ["one: 3 files", "two: 5 files", "three: 8 files", "your 3 children are in"])
      expect(got.text).toContain(text);
    expect(got.items[3].text).toContain(`- ${ids[0]} "kid1" handed back: one: 3 files`);
    expect(await row(hub, p.id)).toMatchObject({ view: "your turn", waitingOn: [], watches: [], pending: 4 });

    // One exact ack of the delivery's seq takes the four.
    await p.c.ok("ack", { id: p.id, token: p.token, seq: got.seq, exact: true });
    await untilRow(hub, p.id, "all taken", (r) => r.pending === 0);
    await p.c.ok("peers");
    expect(deliveries(p)).toHaveLength(1);
    // Held handbacks stop their children at once; the notice is roost's, caused by the last child.
    for (const k of kids) await untilRow(hub, k.id, "stopped", (r) => r.life === "stopped");
    const notice = (await hub.ok("events", { limit: 1000 })).events.filter(
      (e: any) => e.kind === "notice" && e.id === p.id,
    );
    expect(notice).toHaveLength(1);
    expect(notice[0]).toMatchObject({ who: "roost", whoId: ids[2] });
  });

  it("a child respawned is still at work: the watch waits for its handback, not for its stop", async () => {
    const { cursor } = await hub.ok("events", { limit: 1 }); // this test's entries come after it
    const p = await session("parent3");
    const kids = await children(p, 2);
    await p.c.ok("watch", { children: true, when: "handback" });
    await handback(kids[0]!, "one: done");
    await hub.ok("respawn", { id: kids[1]!.id });
    await p.c.ok("peers");
    expect(deliveries(p)).toEqual([]);
    expect(await row(hub, p.id)).toMatchObject({ waitingOn: [kids[1]!.id], pending: 1 });
    const { events } = await hub.ok("events", { after: cursor, limit: 1000 });
    expect(events.filter((e: any) => e.kind === "notice")).toEqual([]);

    const again = await session("kid2", { id: kids[1]!.id });
    await handback(again, "two: done after all");
    const got = await delivery(p, 1);
    expect(got.items.map((i: any) => i.kind)).toEqual(["report", "report", "notice"]);
    expect(got.items[2].text).toContain(`- ${kids[1]!.id} "kid2" handed back: two: done after all`);
  });

  it("ended: fires once every child has ended; none at work fires at once; its args are checked", async () => {
    const p = await session("parent2");
    expect(await p.c.ok("watch", { children: true, when: "ended" })).toMatchObject({
      fired: true,
      children: [],
    });
    expect((await delivery(p, 1)).text).toContain("none of your children is at work");
    const kids = await children(p, 2);
    expect((await p.c.ok("watch", { children: true, when: "ended" })).fired).toBe(false);
    await hub.ok("stop", { id: kids[0]!.id });
    await p.c.ok("peers");
    expect(deliveries(p)).toHaveLength(1);
    await handback(kids[1]!, "done here"); // held: its child stopped at once, the last to end
    const got = await delivery(p, 2);
    expect(got.items.map((i: any) => i.kind)).toEqual(["report", "notice"]);
    expect(got.items[1].text).toContain("your 2 children are in (your watch on your children: ended)");

    expectError(await p.c.request("watch", { children: true, when: "idle" }), "bad_request", "handback");
    expectError(
      await p.c.request("watch", { children: true, id: kids[0]!.id, when: "ended" }),
      "bad_request",
      "leave out id",
    );
    expectError(await p.c.request("watch", { when: "ended" }), "bad_request", "needs the session's id");
    expectError(
      await p.c.request("watch", { id: kids[0]!.id, when: "handback" }),
      "bad_request",
      "children: true",
    );
  });

  it("an agent that does not take batches gets each handback as it comes, then the notice", async () => {
    const p = await session("plain parent", { batches: false });
    const kids = await children(p, 2);
    await p.c.ok("watch", { children: true, when: "handback" });
    expect((await handback(kids[0]!, "first")).outcome).toBe("delivered");
    expect((await delivery(p, 1)).items).toBeUndefined();
    await handback(kids[1]!, "second");
    expect((await delivery(p, 3)).kind).toBe("notice");
    expect(deliveries(p).map((e) => e.kind)).toEqual(["report", "report", "notice"]);
  });
});

describe("batches", () => {
  it("handbacks close together go as one delivery; sent again after a reconnect and after a kill -9, all of them, once each; one ack takes them", async () => {
    const p = await session("batcher");
    const kids = await children(p, 3);
    await Promise.all(kids.map((k, i) => handback(k, `result ${i + 1}`)));
    const got = await delivery(p, 1);
    const seqs = got.items.map((i: any) => i.seq);
    expect(seqs).toHaveLength(3);
    expect(got.seq).toBe(seqs[2]);
    expect(got.items.map((i: any) => i.text.split("\n")[1]).sort()).toEqual([
      "result 1",
      "result 2",
      "result 3",
    ]);

    // Not acked: a new connection gets them again, as one delivery.
    p.c.close();
    const again = await session("batcher", { id: p.id });
    expect((await delivery(again, 1)).items.map((i: any) => i.seq)).toEqual(seqs);
    // A kill -9 before the ack: after the restart, the same again.
    await d.restart("SIGKILL");
    hub = await d.client();
    const back = await session("batcher", { id: p.id });
    const last = await delivery(back, 1);
    expect(last.items.map((i: any) => i.seq)).toEqual(seqs);
    expect(await row(hub, p.id)).toMatchObject({ pending: 3 });
    await back.c.ok("ack", { id: p.id, token: back.token, seq: last.seq, exact: true });
    await untilRow(hub, p.id, "all taken", (r) => r.pending === 0);
    // A reconnect after the ack brings nothing again.
    back.c.close();
    const after = await session("batcher", { id: p.id });
    await after.c.ok("peers");
    expect(deliveries(after)).toEqual([]);
  });

  it("a reply of the user's takes the handbacks held before it first: items go in their order", async () => {
    const p = await session("ordered");
    const [kid] = await children(p, 1);
    await p.c.ok("watch", { children: true, when: "ended" });
    await handback(kid!, "early");
    await hub.ok("reply", { id: p.id, text: "what now?" });
    const first = await delivery(p, 1);
    const second = await delivery(p, 2);
    expect(first.kind).toBe("report");
    expect(second).toMatchObject({ text: "what now?" });
    expect(first.seq).toBeLessThan(second.seq);
  });

  it("the TypeScript client: a delivery sent again with more items than before hands on only those it had not finished; one ack takes all", async () => {
    const p = await session("client parent");
    const kids = await children(p, 3);
    await Promise.all([handback(kids[0]!, "first"), handback(kids[1]!, "second")]);
    const got = await delivery(p, 1);
    const done = got.items.map((i: any) => i.seq);
    expect(done).toHaveLength(2);
    // As a client that finished those two (its agent.json says so) and died before its ack.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-fan-in-"));
    fs.writeFileSync(path.join(dir, "agent.json"), JSON.stringify({ lastSeq: got.seq }));
    p.c.close();
    await untilRow(hub, p.id, "not connected", (r) => !r.connected);
    expect((await handback(kids[2]!, "third")).outcome).toBe("queued");
    const items: Item[] = [];
    const agent = RoostAgent.fromEnv({
      name: "fan-in test",
      version: "1",
      capabilities: [ITEM_BATCHES],
      onReply: () => {},
      onItem: (i) => {
        items.push(i);
      },
      log: () => {},
      env: { ROOST_JOB_ID: p.id, ROOST_JOB_TOKEN: p.token, ROOST_JOB_DIR: dir, ROOST_SOCKET: d.socket },
    })!;
    try {
      agent.report({ state: "working", summary: "back" });
      await until("the third handed on", () => items.length === 1);
      const [item] = items;
      expect(item!.items!.map((i) => i.seq)).toEqual([item!.seq]);
      expect(item!.text.split("\n")[1]).toBe("third");
      expect(item!.text).not.toContain("first");
      await untilRow(hub, p.id, "all three taken by one ack", (r) => r.pending === 0);
      expect(JSON.parse(fs.readFileSync(path.join(dir, "agent.json"), "utf8"))).toEqual({
        lastSeq: item!.seq,
      });
    } finally {
      await agent.close({ timeoutMs: 500 });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a child that handed back with done", () => {
  it("stays done, its handback's text its summary, whatever it reports until it is stopped", async () => {
    const p = await session("parent");
    const [kid] = await children(p, 1);
    // The parent away: the handback waits for it, and the child is not stopped yet.
    p.c.close();
    await untilRow(hub, p.id, "not connected", (r) => !r.connected);
    expect((await handback(kid!, "the result")).outcome).toBe("queued");
    // The turn its agent goes on with after the tool (pi reports working as its model answers).
    await kid!.c.ok("report", {
      id: kid!.id,
      token: kid!.token,
      report: {
        state: "working",
        summary: "writing my last words",
        agentItems: true,
        usage: { messages: 3 },
      },
    });
    const after = await row(hub, kid!.id);
    expect(after).toMatchObject({ state: "done", status: "idle", summary: "the result", life: "running" });
    expect(after.usage).toMatchObject({ messages: 3 }); // the rest of the report is taken
  });
});
