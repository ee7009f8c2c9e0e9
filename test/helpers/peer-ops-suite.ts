/**
 * The peer ops and items as a client's agent meets them, one suite run for each client
 * (agent-peers.test.ts, python-peers.test.ts) on its scripted agent: agents message, spawn, hand
 * back and watch each other; their items are handed to the item handler once each and acked
 * exactly, kept in agent.json like replies (a kill -9 mid-handler brings one again, one finished
 * but not acked is only acked); without an item handler they come to the reply handler.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { until } from "./daemon.js";
import { row, untilRow } from "./jobs.js";
import { body, call, type ScriptedClient, scriptedAgent, scriptedDaemonPerTest } from "./scripted-agents.js";

export function describePeerOps(client: ScriptedClient): void {
  const { item: onItem, reply: onReply } = client.handlers;

  describe(`${client.name}: the peer ops`, () => {
    const start = scriptedDaemonPerTest(client);

    it(`peers and send: an item to an agent with ${onItem} is handed over once, acked exactly; its reports say agentItems`, async () => {
      const { c, agent } = await start();
      const a = await agent("items", "alice");
      const b = await agent("items", "bob");
      const listed = await call(c, a, "peers");
      expect(listed.ok).toBe(true);
      expect(listed.result.find((p: any) => p.self)).toMatchObject({ id: a.id, name: "alice" });
      expect(listed.result.find((p: any) => p.id === b.id)).toMatchObject({ name: "bob", self: false });

      const sent = await call(c, a, "send bob rebase onto main");
      expect(sent.result).toEqual({ outcome: "delivered", to: { id: b.id, name: "bob" } });
      const [item] = await until("bob's item", () => b.log("items.jsonl")[0] && b.log("items.jsonl"));
      expect(item).toMatchObject({ kind: "message", from: { id: a.id, name: "alice" }, relation: "peer" });
      expect(item.text).toMatch(
        /^\[roost message from j\d+ "alice" \(peer\): another session, not the user;/,
      );
      expect(body(item.text)).toBe("rebase onto main");
      // Taken: a cumulative ack does not take an item (test/daemon/peers.test.ts), so it was acked exactly.
      const r = await untilRow(
        c,
        b.id,
        "the item acked",
        (x) => x.pending === 0 && x.summary === "did: rebase onto main",
      );
      expect(r).toMatchObject({ agentItems: true, lastSeq: 2 });
      expect(r.capabilities).toEqual(client.capabilities.items);
      expect(JSON.parse(fs.readFileSync(b.file("agent.json"), "utf8"))).toEqual({ lastSeq: 2 });
      expect(b.log("handled.jsonl").map((h) => [h.seq, h.item])).toEqual([
        [1, false],
        [2, true],
      ]);

      // The next reply comes after it, in the same order, to the reply handler.
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

    it(`without ${onItem}, an item comes to ${onReply} as a follow-up whose text begins with the envelope; the reports do not say agentItems`, async () => {
      const { c, agent } = await start();
      const a = await agent("items", "asker");
      const b = await agent("plain", "plain");
      expect((await call(c, a, `send ${b.id} just text`)).result.outcome).toBe("delivered");
      const r = await untilRow(c, b.id, "the follow-up handled", (x) => x.pending === 0 && x.lastSeq === 2);
      expect(r.agentItems).toBe(null);
      expect(r.capabilities).toEqual(client.capabilities.plain);
      const handled = await until("handled", () => b.log("handled.jsonl")[1]);
      expect(handled.item).toBe(false);
      expect(handled.text).toMatch(/^\[roost message from j\d+ "asker" \(peer\): .*\]\njust text$/);
      expect(b.log("items.jsonl")).toEqual([]);
    });

    it(`spawn, handback and watch: the parent's ${onItem} gets its child's reports, then the notice of its end`, async () => {
      const { d, c, agent } = await start();
      const p = await agent("items", "parent");
      const spawned = await call(c, p, "spawn items count the files");
      expect(spawned.ok).toBe(true);
      expect(spawned.result.job).toMatchObject({ parent: p.id, profile: "items" });
      const kid = scriptedAgent(d, spawned.result.job);
      await until("the child's task handled", () => kid.log("handled.jsonl").length === 1);
      expect(kid.log("handled.jsonl")[0].text).toBe("count the files");
      expect((await call(c, p, `watch ${kid.id} ended`)).result).toMatchObject({ id: kid.id, fired: false });

      // A part first: the child goes on.
      expect((await call(c, kid, "handback-part halfway")).result).toEqual({
        outcome: "delivered",
        to: { id: p.id, name: "parent" },
      });
      // Its process is stopped once the parent has the item: its answer may not be logged.
      await c.ok("reply", { id: kid.id, text: "handback 42 files" });
      const items = await until("the reports and the notice", () => {
        const got = p.log("items.jsonl");
        return got.length === 3 ? got : null;
      });
      expect(items.map((i) => [i.kind, i.relation, body(i.text)])).toEqual([
        ["report", "child", "halfway"],
        ["report", "child", "42 files"],
        ["notice", "roost", `${kid.id} "count the files" is stopped: 42 files (your watch: ended)`],
      ]);
      const ended = await untilRow(c, kid.id, "stopped after its handback", (x) => x.life === "stopped");
      expect(ended).toMatchObject({ state: "done", summary: "42 files" });
      await untilRow(c, p.id, "every item acked", (x) => x.pending === 0);
      // A session with no parent cannot hand back.
      expect(await call(c, p, "handback to whom")).toMatchObject({ ok: false, code: "bad_request" });
    });

    it("an item whose handler was killed -9 comes again on the next start; one finished but not acked is skipped and only acked", async () => {
      const { c, agent } = await start();
      const a = await agent("items", "sender");
      const b = await agent("taker", "taker");
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
      await call(c, a, `send ${b.id} ${client.losesAck.text}`);
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
}
