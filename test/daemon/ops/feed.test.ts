/**
 * The events feed and pushes (docs/protocol.md, `events`; docs/protocol.md, `subscribe`), against
 * a real daemon: what happened, who did it, cursors, limits, the last 1000, and live pushes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { Bridge } from "../../../bridge/server.js";
import type { FeedEntry } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../../../server/core/core.js";
import { Pushes } from "../../../server/core/pushes.js";
import { Remotes } from "../../../server/fleet/remotes.js";
import { runOp } from "../../../server/ops/index.js";
import { agentProfile, until } from "../../helpers/daemon.js";
import {
  cleanDaemonPerTest,
  handled,
  sharedCleanDaemon,
  silentProfile,
  startCleanDaemonHere,
  untilRow,
} from "../../helpers/jobs.js";
import { RawClient } from "../../helpers/raw-client.js";

const config = () => ({
  agentProfiles: { agent: agentProfile(), silent: silentProfile() },
});

const daemon = sharedCleanDaemon(config);
/** A daemon of its own, for a test that reads the whole feed from its start. */
const freshDaemon = cleanDaemonPerTest(config, startCleanDaemonHere);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const events = async (c: RawClient, args: Record<string, unknown> = {}) => c.ok("events", args);
const brief = (e: any) => [e.kind, e.who];

describe("events", () => {
  it("has starts, replies, states, exits, respawns, stops, renames and removals, each with its actor", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "first", name: "alpha", cwd: dir });
    const id = job.id;
    await until("the task handled", () => handled(d, id).length === 1);
    await c.ok("reply", { id, text: "done" });
    await untilRow(c, id, "done", (x) => x.state === "done");
    await c.ok("reply", { id, text: "exit 3" });
    await untilRow(c, id, "exited", (x) => x.life === "exited");
    await c.ok("respawn", { id });
    await untilRow(c, id, "connected", (x) => x.connected);
    await c.ok("stop", { id });
    await c.ok("rename", { id, name: "beta" });
    await c.ok("rm", { id });

    const { events: all, cursor } = await events(c, { id });
    expect(all.map(brief)).toEqual([
      ["dispatch", "user"],
      ["start", "roost"],
      ["reply", "user"],
      ["state", "alpha"],
      ["reply", "user"],
      ["exit", "roost"],
      ["respawn", "user"],
      ["start", "roost"],
      ["stop", "user"],
      ["rename", "user"],
      ["rm", "user"],
    ]);
    expect(cursor).toBe(all.at(-1).cursor);
    for (const e of all) {
      expect(Object.keys(e).sort()).toEqual(["at", "cursor", "id", "kind", "text", "who", "whoId"]);
      expect(e.id).toBe(id);
      expect(e.at).toMatch(ISO);
      expect(typeof e.text).toBe("string");
      expect(e.text.length).toBeGreaterThan(0);
      expect(e.whoId).toBe(e.kind === "state" ? id : null);
    }
    const cursors = all.map((e: any) => e.cursor);
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(cursors).size).toBe(cursors.length);
    const text = (kind: string) => all.filter((e: any) => e.kind === kind).map((e: any) => e.text);
    expect(text("dispatch")).toEqual(["agent: first"]);
    expect(text("reply")).toEqual(["done", "exit 3"]);
    expect(text("state")[0]).toContain("done");
    expect(text("exit")[0]).toContain("3");
    expect(text("rename")[0]).toContain("beta");
    expect(text("rm")[0]).toContain("beta");
  });

  it("names the user as the actor of the stops that rm, respawn and /stop make", async () => {
    const { c, dir } = await daemon();
    const a = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job.id;
    const b = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job.id;
    const e = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job.id;
    for (const id of [a, b, e]) await untilRow(c, id, "running", (x) => x.life === "running");
    await c.ok("respawn", { id: a });
    await c.ok("reply", { id: b, text: "/stop" });
    await c.ok("rm", { id: e });
    const kinds = async (id: string) => (await events(c, { id })).events.slice(2).map(brief);
    expect(await kinds(a)).toEqual([
      ["stop", "user"],
      ["respawn", "user"],
      ["start", "roost"],
    ]);
    expect(await kinds(b)).toEqual([
      ["reply", "user"],
      ["stop", "user"],
    ]);
    expect(await kinds(e)).toEqual([
      ["stop", "user"],
      ["rm", "user"],
    ]);
  });

  it("says when a daemon found a job running again", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    await untilRow(c, job.id, "running", (x) => x.pid);
    await d.restart();
    const c2 = await d.client();
    const { events: all } = await events(c2, { id: job.id });
    expect(all.map(brief)).toEqual([
      ["dispatch", "user"],
      ["start", "roost"],
      ["restart", "roost"],
    ]);
  });

  it("pages with after (oldest first), limit and id", async () => {
    const { c, dir } = await freshDaemon();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.ok("dispatch", { profile: "silent", cwd: dir })).job.id);
    const all = (await events(c)).events;
    expect(all).toHaveLength(6);
    expect(all.map((e: any) => e.kind)).toEqual([
      "dispatch",
      "start",
      "dispatch",
      "start",
      "dispatch",
      "start",
    ]);
    const [e1, e2, e3, e4, , e6] = all;
    // Without after: the newest `limit`, oldest first.
    const newest = await events(c, { limit: 2 });
    expect(newest.events.map((e: any) => e.cursor)).toEqual([all[4].cursor, e6.cursor]);
    expect(newest.cursor).toBe(e6.cursor);
    // After a cursor: the ones after it, oldest first, `limit` of them; the cursor is the last given.
    const page = await events(c, { after: e2.cursor, limit: 2 });
    expect(page.events).toEqual([e3, e4]);
    expect(page.cursor).toBe(e4.cursor);
    const rest = await events(c, { after: page.cursor });
    expect(rest.events.map((e: any) => e.cursor)).toEqual([all[4].cursor, e6.cursor]);
    // Nothing new: no events, and the cursor stays.
    expect(await events(c, { after: e6.cursor })).toEqual({ events: [], cursor: e6.cursor });
    expect((await events(c, { after: 0, limit: 1 })).events).toEqual([e1]);
    // id: that job's alone.
    const one = await events(c, { id: ids[1] });
    expect(one.events).toEqual([e3, e4]);
    expect((await events(c, { id: ids[1], after: e3.cursor })).events).toEqual([e4]);
    expect((await events(c, { id: "j999" })).events).toEqual([]);
    for (const bad of [{ limit: 0 }, { limit: 1001 }, { after: -1 }, { after: "x" }]) {
      expect((await c.request("events", bad)).code, JSON.stringify(bad)).toBe("bad_request");
    }
  });

  it("keeps the last 1000", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    const renames = 1150;
    for (let i = 0; i < renames; i += 50) {
      const batch = [];
      for (let j = i; j < Math.min(i + 50, renames); j++)
        batch.push(c.ok("rename", { id: job.id, name: `n${j}` }));
      await Promise.all(batch);
    }
    // `after` entries follow the last rename (a daemon restart adds one).
    const check = async (client: RawClient, after: number) => {
      const newest = await events(client, { limit: 1000 });
      expect(newest.events).toHaveLength(1000);
      expect(newest.events.at(-1 - after).text).toContain(`n${renames - 1}`);
      expect(newest.events[0].text).toContain(`n${renames - 1000 + after}`);
      const first = newest.events[0].cursor;
      const last = newest.cursor;
      expect(last - first).toBe(999);
      // Nothing older than the last 1000 is given, whatever `after` asks.
      const fromStart = await events(client, { after: 0, limit: 1000 });
      expect(fromStart.events).toEqual(newest.events);
      expect((await events(client, { after: 0, limit: 3 })).events).toEqual(newest.events.slice(0, 3));
      const mine = await events(client, { id: job.id, limit: 1000 });
      expect(mine.events.map((e: any) => e.kind)).not.toContain("dispatch");
      expect(mine.events).toHaveLength(1000);
    };
    await check(c, 0);
    // And no more than that is kept on disk (pruned in steps of 100).
    const db = new Database(path.join(d.home, "roost.db"), { readonly: true });
    const { n } = db.prepare("SELECT count(*) AS n FROM events").get() as { n: number };
    db.close();
    expect(n).toBeGreaterThanOrEqual(1000);
    expect(n).toBeLessThan(1100);
    await d.restart();
    const c2 = await d.client();
    await check(c2, 1);
    expect((await events(c2, { limit: 1 })).events.map(brief)).toEqual([["restart", "roost"]]);
  });
});

describe("subscribe", () => {
  it("answers {rows}, then pushes row, removed and feed", async () => {
    const { c, d, dir } = await daemon();
    const before = (await c.ok("dispatch", { profile: "silent", name: "before", cwd: dir })).job;
    const s = await d.client();
    const { rows } = await s.ok("subscribe", {});
    expect(rows.map((r: any) => [r.id, r.name])).toEqual([[before.id, "before"]]);
    expect(rows[0]).toMatchObject({ profile: "silent", life: "running" });

    const { job } = await c.ok("dispatch", { profile: "agent", task: "hello", name: "pushed", cwd: dir });
    const rowOf = (pred: (r: any) => boolean) => (e: any) => e.event === "row" && pred(e.row);
    await s.event(
      rowOf((r) => r.id === job.id),
      "a row push for the new job",
    );
    await s.event(
      rowOf((r) => r.id === job.id && r.connected && r.summary === "did: hello" && r.pending === 0),
      "the row once the agent reported and acked",
    );
    const feedOf =
      (kind: string, id = job.id) =>
      (e: any) =>
        e.event === "feed" && e.entry.kind === kind && e.entry.id === id;
    await s.event(feedOf("dispatch"), "the dispatch entry");
    await s.event(feedOf("start"), "the start entry");

    await c.ok("reply", { id: job.id, text: "more" });
    await s.event(feedOf("reply"), "the reply entry");
    await c.ok("rename", { id: before.id, name: "after" });
    await s.event(
      rowOf((r) => r.id === before.id && r.name === "after"),
      "the renamed row",
    );
    await s.event(feedOf("rename", before.id), "the rename entry");
    await c.ok("pin", { id: before.id, pinned: true });
    await s.event(
      rowOf((r) => r.id === before.id && r.pinned),
      "the pinned row",
    );

    // The feed pushes are the feed's entries.
    const pushed = s.events.filter((e) => e.event === "feed").map((e) => e.entry);
    const { events: kept } = await c.ok("events", {});
    expect(pushed).toEqual(kept.filter((e: any) => e.cursor > pushed[0].cursor - 1));

    await c.ok("rm", { id: job.id });
    await s.event((e) => e.event === "removed" && e.id === job.id, "removed");
    await s.event(feedOf("rm"), "the rm entry");
    // The job had exited before rm answered; a push for it still due would come before the
    // push of a change made now (a connection's pushes come in order).
    await c.ok("pin", { id: before.id, pinned: false });
    await s.event(
      rowOf((r) => r.id === before.id && !r.pinned),
      "the unpinned row",
    );
    const removedAt = s.events.findIndex((e) => e.event === "removed" && e.id === job.id);
    const laterRows = s.events.slice(removedAt).filter((e) => e.event === "row" && e.row.id === job.id);
    expect(laterRows).toEqual([]);
    // Still an ordinary connection for requests.
    expect((await s.ok("list", {})).rows.map((r: any) => r.id)).toEqual([before.id]);
    // Only the subscriber gets pushes.
    expect(c.events).toEqual([]);
  });

  it("pushes once per change, even when subscribed twice; the daemon goes on once the subscriber has closed", async () => {
    const { c, d, dir } = await daemon();
    const s = await d.client();
    await s.ok("subscribe", {});
    await s.ok("subscribe", {});
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    await c.ok("rename", { id: job.id, name: "once" });
    await s.event((e) => e.event === "feed" && e.entry.kind === "rename", "the rename entry");
    // A second push of each would come before a later change's first (pushes come in order).
    await c.ok("pin", { id: job.id, pinned: true });
    const marker = await s.event((e) => e.event === "row" && e.row.pinned, "the pinned row");
    const entries = s.events
      .slice(0, s.events.indexOf(marker))
      .filter((e) => e.event === "feed")
      .map((e) => e.entry.cursor);
    expect(entries).toEqual([...new Set(entries)]);
    expect(entries).toHaveLength(3);
    s.close();
    await s.closed;
    await c.ok("rename", { id: job.id, name: "twice" });
    expect((await c.ok("list", {})).rows[0].name).toBe("twice");
  });

  it("stops when the connection closes: the real socket server and subscribe op, in-process", async () => {
    // The daemon does not say how many subscribe, so this runs the bridge and the op table in
    // this process, around a real Pushes: only the rest of the core is left out.
    const pushes = new Pushes();
    const core = {
      pushes,
      registry: { rows: () => [] },
      remotes: new Remotes(pushes, [], () => [], []),
    } as unknown as Core;
    const bridge = new Bridge((caller, op, args) => runOp(core, caller, op, args));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-subscribe-"));
    try {
      await bridge.listen(path.join(dir, "s.sock"));
      const s = await RawClient.connect(path.join(dir, "s.sock"));
      expect(await s.ok("subscribe", {})).toEqual({ rows: [] });
      expect(pushes.subscribers).toBe(1);
      const entry = {
        cursor: 1,
        at: new Date().toISOString(),
        id: "j1",
        kind: "rename",
        text: "x",
        who: "user",
        whoId: null,
      };
      pushes.feed(entry as FeedEntry);
      await s.event((e) => e.event === "feed", "the push");
      s.close();
      await s.closed;
      await until("the subscription gone with its connection", () => pushes.subscribers === 0);
      pushes.feed({ ...entry, cursor: 2 } as FeedEntry); // nobody to push to: nothing breaks
      expect(bridge.size).toBe(0);
    } finally {
      await bridge.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is refused on a session's connection", async () => {
    const { c, dir, d } = await daemon();
    await c.ok("dispatch", { profile: "silent", cwd: dir });
    const s = await d.client();
    await s.ok("hello", { protocol: 1 });
    const r = await s.request("subscribe", {});
    expect(r.code).toBe("unsupported");
    expect((await s.request("events", {})).code).toBe("unsupported");
  });
});
