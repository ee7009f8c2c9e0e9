/**
 * The concierge (docs/protocol.md, "The concierge"), through the socket
 * of a real daemon, each rule by a test named after it: the concierge a scripted protocol agent
 * (an inert job the test speaks for, helpers/concierge.ts), the hub-only ops over HTTP too. The
 * digests, and an order due after a restart, are test/daemon/concierge-digests.test.ts's; the concierge
 * roost starts (pi), test/agents/pi/concierge.test.ts's.
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { expectError, nextDelivery, session } from "../helpers/board.js";
import { blockedOn, CONFIG, conciergeOn, reportAs } from "../helpers/concierge.js";
import { daemonRefusal, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { daemonEnv } from "../helpers/daemon-process.js";
import { api } from "../helpers/http.js";
import { row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let hub: RawClient;

beforeAll(async () => {
  d = await startDaemon({
    // `reader`: a terminal agent that reads messages (typed into its terminal), as the agent CLIs'.
    config: {
      agentProfiles: {
        ...CONFIG.agentProfiles,
        reader: { command: ["sleep", "600"], task: "type", messages: true },
      },
    },
    env: { SHELL: "/bin/bash" },
  });
  hub = await d.client();
});
afterAll(async () => d?.cleanup());
afterEach(async () => {
  // Every test starts with no job, the policy at its start and no order.
  const { rows } = await hub.ok("list");
  await Promise.all(rows.map((r: any) => hub.ok("rm", { id: r.id })));
  await hub.ok("concierge", { action: "answer", answer: "never" });
  await hub.ok("concierge", { action: "act", act: false });
  for (const o of (await hub.ok("concierge-order", { action: "list" })).orders)
    await hub.ok("concierge-order", { action: "rm", id: o.id });
});

const sess = (name: string) => session(d, hub, name);
const status = () => hub.ok("concierge", { action: "status" });
const feed = async (kind: string) =>
  (await hub.ok("events", { limit: 1000 })).events.filter((e: any) => e.kind === kind);

describe("on, off, status", () => {
  it('on with a launch: its job has role "concierge" and the name concierge; a second on answers the status and starts nothing', async () => {
    expect(await status()).toEqual({
      on: false,
      id: null,
      state: null,
      policy: { answer: "never", act: false },
      answered: null,
      orders: 0,
      need: null,
    });
    const on = await hub.ok("concierge", { action: "on", launch: { profile: "inert", cwd: "/tmp" } });
    expect(on).toMatchObject({ on: true, id: expect.any(String) });
    const r = await row(hub, on.id);
    expect(r).toMatchObject({ role: "concierge", name: "concierge", profile: "inert" });
    const again = await hub.ok("concierge", { action: "on", launch: { profile: "inert" } });
    expect(again.id).toBe(on.id);
    expect((await hub.ok("list")).rows).toHaveLength(1);
  });

  it("off stops its job and keeps its row; on again starts the job it had", async () => {
    const c = await conciergeOn(d, hub);
    const off = await hub.ok("concierge", { action: "off" });
    expect(off).toMatchObject({ on: false, id: c.id, state: "stopped" });
    expect((await row(hub, c.id)).life).toBe("stopped");
    const on = await hub.ok("concierge", { action: "on" });
    expect(on).toMatchObject({ on: true, id: c.id });
    await untilRow(hub, c.id, "running again", (r) => r.life === "running");
  });

  it("on without a launch runs pi with roost's concierge: bad_request saying so when pi cannot run", async () => {
    // A daemon whose PATH has no pi (the tests' own has the pinned one: test/agents/pi/concierge.test.ts).
    const other = await startDaemon({ config: CONFIG, env: { PATH: "/usr/bin:/bin" } });
    try {
      const c = await other.client();
      expect((await c.ok("profiles")).profiles.find((p: any) => p.name === "pi").installed).toBe(false);
      expectError(await c.request("concierge", { action: "on" }), "bad_request", "the concierge runs pi");
      expect((await c.ok("list")).rows).toEqual([]);
      expect((await c.ok("concierge", { action: "status" })).on).toBe(false);
    } finally {
      await other.cleanup();
    }
  });

  it("the name concierge is the concierge's: a session may not take it, its report naming itself so keeps roost's name", async () => {
    expectError(
      await hub.request("dispatch", { profile: "inert", name: "Concierge", cwd: "/tmp" }),
      "bad_request",
      "reserved",
    );
    const a = await sess("worker");
    await reportAs(a, { state: "working", name: "concierge" });
    expect((await row(hub, a.id)).name).toBe("worker");
    expect((await row(hub, a.id)).role).toBe(null);
  });

  it("is pushed to the hubs as a concierge event whenever its status changes", async () => {
    const sub = await d.client();
    await sub.ok("subscribe");
    await hub.ok("concierge", { action: "answer", answer: "routine" });
    const pushed = await sub.event((e) => e.event === "concierge", "a concierge push");
    expect(pushed.status.policy).toEqual({ answer: "routine", act: false });
  });
});

describe("who may call what", () => {
  it("the hub's concierge and concierge-ask are refused on a session's connection, the concierge's too", async () => {
    const a = await sess("worker");
    const c = await conciergeOn(d, hub);
    for (const s of [a, c]) {
      expectError(
        await s.c.request("concierge", { action: "status" }),
        "unsupported",
        "concierge is a hub op",
      );
      expectError(
        await s.c.request("concierge-ask", { text: "hi" }),
        "unsupported",
        "concierge-ask is a hub op",
      );
    }
  });

  it("the concierge's own ops are refused on any other session's connection, and on the hub's", async () => {
    const a = await sess("worker");
    await conciergeOn(d, hub);
    const calls: [string, unknown][] = [
      ["concierge-say", { kind: "info", text: "hello" }],
      ["concierge-suggest", { id: a.id, text: "yes" }],
      ["concierge-policy", {}],
      ["concierge-reply", { id: a.id, text: "yes" }],
      ["concierge-act", { what: "stop", id: a.id }],
    ];
    for (const [op, args] of calls) {
      expectError(await a.c.request(op, args), "unsupported", `${op} is the concierge's op`);
      expectError(await hub.request(op, args), "unsupported", `${op} is the concierge's op`);
    }
    expectError(
      await a.c.request("concierge-order", { action: "list" }),
      "unsupported",
      "concierge-order is a hub op (and the concierge's)",
    );
    expectError(await a.c.request("events", {}), "unsupported", "events is a hub op (and the concierge's)");
  });

  it("the concierge may read events, and send to any session by id or by name", async () => {
    const a = await sess("worker");
    const c = await conciergeOn(d, hub);
    const { events } = await c.c.ok("events", { limit: 50 });
    expect(events.some((e: any) => e.kind === "dispatch" && e.id === a.id)).toBe(true);
    expect(await c.c.ok("send", { to: "worker", text: "how is it going?" })).toMatchObject({
      outcome: "delivered",
      to: { id: a.id, name: "worker" },
    });
    const item = await nextDelivery(a, 1);
    expect(item).toMatchObject({
      kind: "message",
      from: { id: c.id, name: "concierge" },
      relation: "concierge",
    });
    const message = (await feed("message")).at(-1);
    expect(message).toMatchObject({ id: a.id, who: "concierge", whoId: c.id });
  });

  it("its ops before its report are a hub's (unsupported); once its job ended, its connection closes and its token is refused", async () => {
    const c = await conciergeOn(d, hub);
    const fresh = await d.client();
    expectError(await fresh.request("concierge-policy", {}), "unsupported", "after its report");
    await hub.ok("concierge", { action: "off" });
    await c.c.closed; // a job's own connection ends with its job
    const again = await fresh.request("report", { id: c.id, token: c.token, report: { state: "working" } });
    expectError(again, "unauthorized", "has ended");
    fresh.close();
  });
});

describe("concierge-ask and concierge-say", () => {
  it("ask is a reply to the concierge's job; say is a concierge entry in the feed, who concierge with its whoId", async () => {
    const c = await conciergeOn(d, hub);
    const asked = await hub.ok("concierge-ask", { text: "what needs me?" });
    expect(asked).toMatchObject({ id: c.id, seq: expect.any(Number) });
    const delivered = await c.c.event(
      (e) => e.event === "deliver" && e.text === "what needs me?",
      "the user's words",
    );
    expect(delivered.kind).toBeUndefined(); // the user's reply, not a peer item
    await c.c.ok("concierge-say", { kind: "answer", text: "nothing: all three are working" });
    const said = (await feed("concierge")).at(-1);
    expect(said).toMatchObject({
      id: c.id,
      kind: "concierge",
      why: "answer",
      text: "nothing: all three are working",
      who: "concierge",
      whoId: c.id,
    });
  });

  it("a need is raised in the status (and pushed) until the user asks something", async () => {
    const c = await conciergeOn(d, hub);
    const sub = await d.client();
    await sub.ok("subscribe");
    await c.c.ok("concierge-say", { kind: "need", text: "j9 wants a database password" });
    expect((await status()).need).toMatchObject({ text: "j9 wants a database password" });
    await sub.event((e) => e.event === "concierge" && e.status.need !== null, "the need pushed");
    // Said again while it is raised: not said again.
    await c.c.ok("concierge-say", { kind: "need", text: "j9 wants a database password" });
    const needs = (await feed("concierge")).filter((e: any) => e.why === "need" && e.whoId === c.id);
    expect(needs).toHaveLength(1);
    await hub.ok("concierge-ask", { text: "I will give it" });
    expect((await status()).need).toBe(null);
  });

  it("ask with no concierge: bad_request saying to turn it on", async () => {
    expectError(await hub.request("concierge-ask", { text: "hi" }), "bad_request", "the concierge is off");
  });

  it("say's kind is info, need or answer: anything else is bad_request", async () => {
    const c = await conciergeOn(d, hub);
    expectError(await c.c.request("concierge-say", { kind: "shout", text: "x" }), "bad_request");
    expectError(
      await c.c.request("concierge-say", { kind: "info", text: "x".repeat(LIMITS.conciergeSay + 1) }),
      "bad_request",
    );
  });
});

describe("suggest", () => {
  it("a row that waits carries suggested {text, why, at} until it is answered", async () => {
    const a = await sess("asker");
    await blockedOn(a, "Run the migration?", ["yes", "no"]);
    const c = await conciergeOn(d, hub);
    const { row: r } = await c.c.ok("concierge-suggest", {
      id: a.id,
      text: "yes",
      why: "it is a dev database",
    });
    expect(r.suggested).toEqual({ text: "yes", why: "it is a dev database", at: expect.any(String) });
    expect((await row(hub, a.id)).suggested).toMatchObject({ text: "yes" });
    expect((await feed("concierge")).at(-1)).toMatchObject({ id: a.id, why: "suggest", who: "concierge" });
    // The user takes it with a click: a reply of its text. The suggestion is past.
    await hub.ok("reply", { id: a.id, text: r.suggested.text });
    expect((await row(hub, a.id)).suggested).toBe(null);
  });

  it("a new state or question is past it", async () => {
    const a = await sess("asker");
    await blockedOn(a, "Run the migration?");
    const c = await conciergeOn(d, hub);
    await c.c.ok("concierge-suggest", { id: a.id, text: "yes" });
    await blockedOn(a, "And drop the old table?");
    expect((await row(hub, a.id)).suggested).toBe(null);
  });

  it("a row that does not wait is bad_request; the concierge itself too", async () => {
    const a = await sess("busy");
    const c = await conciergeOn(d, hub);
    expectError(
      await c.c.request("concierge-suggest", { id: a.id, text: "x" }),
      "bad_request",
      "does not wait",
    );
    expectError(await c.c.request("concierge-suggest", { id: c.id, text: "x" }), "bad_request", "itself");
    expectError(await c.c.request("concierge-suggest", { id: "j999", text: "x" }), "not_found");
  });
});

describe("the policy", () => {
  it("starts as never and no acting; answer and act from the hub are kept, and answer the status; concierge-policy says it", async () => {
    const c = await conciergeOn(d, hub);
    expect(await c.c.ok("concierge-policy", {})).toEqual({ policy: { answer: "never", act: false } });
    expect((await hub.ok("concierge", { action: "answer", answer: "routine" })).policy).toEqual({
      answer: "routine",
      act: false,
    });
    expect((await hub.ok("concierge", { action: "act", act: true })).policy).toEqual({
      answer: "routine",
      act: true,
    });
    expect(await c.c.ok("concierge-policy", {})).toEqual({ policy: { answer: "routine", act: true } });
    expectError(await hub.request("concierge", { action: "answer", answer: "sometimes" }), "bad_request");
    expectError(await hub.request("concierge", { action: "answer" }), "bad_request", "answer needs");
    expect((await feed("concierge")).at(-1)).toMatchObject({ why: "policy", who: "user" });
  });

  it("is kept across a restart of the daemon", async () => {
    await hub.ok("concierge", { action: "answer", answer: "always" });
    await d.restart();
    hub = await d.client();
    expect((await status()).policy).toEqual({ answer: "always", act: false });
  });
});

describe("concierge-reply", () => {
  it("refused with policy unless the policy allows", async () => {
    const a = await sess("asker");
    await blockedOn(a, "Run the migration?");
    const c = await conciergeOn(d, hub);
    expectError(await c.c.request("concierge-reply", { id: a.id, text: "yes" }), "policy", "answer: never");
    expect((await row(hub, a.id)).pending).toBe(0);
  });

  it("bad_request unless the row waits for a question", async () => {
    const a = await sess("done one");
    await reportAs(a, { state: "done", status: "idle", summary: "finished" });
    const c = await conciergeOn(d, hub);
    await hub.ok("concierge", { action: "answer", answer: "always" });
    expectError(
      await c.c.request("concierge-reply", { id: a.id, text: "now the docs" }),
      "bad_request",
      "does not wait for a question",
    );
  });

  it("with ifAsked (the asked its digest showed): a question changed since is refused conflict, nothing sent; suggest too", async () => {
    const a = await sess("asker");
    await blockedOn(a, "Run the migration?", ["yes", "no"]);
    const c = await conciergeOn(d, hub);
    await hub.ok("concierge", { action: "answer", answer: "always" });
    const read = (await row(hub, a.id)).asked;
    await blockedOn(a, "And drop the old table?", ["yes", "no"]);
    const now = (await row(hub, a.id)).asked;
    expect(now).toBeGreaterThan(read);
    expectError(
      await c.c.request("concierge-suggest", { id: a.id, text: "yes", ifAsked: read }),
      "conflict",
      `${a.id} now asks something else`,
    );
    expectError(
      await c.c.request("concierge-reply", { id: a.id, text: "yes", ifAsked: read }),
      "conflict",
      `${a.id} now asks something else`,
    );
    expect(await row(hub, a.id)).toMatchObject({ pending: 0, lastSeq: 0, suggested: null, asked: now });
    const { answered } = await c.c.ok("concierge-reply", { id: a.id, text: "no", ifAsked: now });
    expect(answered).toMatchObject({ question: "And drop the old table?", text: "no" });
  });

  it("answers in the user's place: a reply by the concierge, taken once; the status's answered; undo steers the session to disregard it", async () => {
    const a = await sess("asker");
    await blockedOn(a, "Run the migration?", ["yes", "no"]);
    const c = await conciergeOn(d, hub);
    await hub.ok("concierge", { action: "answer", answer: "routine" });
    const { answered } = await c.c.ok("concierge-reply", { id: a.id, text: "yes", why: "a dev database" });
    expect(answered).toMatchObject({
      id: a.id,
      name: "asker",
      question: "Run the migration?",
      text: "yes",
      why: "a dev database",
      undone: false,
    });
    const got = await nextDelivery(a, 1);
    expect(got).toMatchObject({ text: "yes", seq: answered.seq });
    expect(got.kind).toBeUndefined(); // a reply, as the user's would be
    const replyEntry = (await feed("reply")).at(-1);
    expect(replyEntry).toMatchObject({
      id: a.id,
      text: "yes",
      who: "concierge",
      whoId: c.id,
      why: "a dev database",
    });
    expect((await status()).answered).toEqual(answered);

    const undone = await hub.ok("concierge", { action: "undo" });
    expect(undone.undone).toMatchObject({ id: a.id, text: "yes", undone: true });
    expect(undone.answered.undone).toBe(true);
    const steer = await nextDelivery(a, 2);
    expect(steer.mode).toBe("steer");
    expect(steer.text).toContain('withdrew the answer the concierge gave in their place: "yes"');
    expect((await feed("concierge")).at(-1)).toMatchObject({ id: a.id, why: "undo", who: "user" });
    expectError(await hub.request("concierge", { action: "undo" }), "bad_request", "no answer");
    // Taken once: the session saw the answer and the undo, nothing more.
    await a.c.ok("ack", { id: a.id, token: a.token, seq: steer.seq });
    expect((await row(hub, a.id)).pending).toBe(0);
    expect(a.c.events.filter((e) => e.event === "deliver" && e.text === "yes")).toHaveLength(1);
  });

  it("undo with nothing answered is bad_request", async () => {
    await conciergeOn(d, hub);
    expectError(await hub.request("concierge", { action: "undo" }), "bad_request", "no answer");
  });
});

describe("concierge-act", () => {
  it("needs act: policy otherwise", async () => {
    const a = await sess("worker");
    const c = await conciergeOn(d, hub);
    expectError(await c.c.request("concierge-act", { what: "stop", id: a.id }), "policy", "act: false");
    expect((await row(hub, a.id)).life).toBe("running");
  });

  it("stop, respawn and dispatch, by the concierge in the feed", async () => {
    const a = await sess("worker");
    const c = await conciergeOn(d, hub);
    await hub.ok("concierge", { action: "act", act: true });
    expect(await c.c.ok("concierge-act", { what: "stop", id: "worker" })).toEqual({ id: a.id });
    expect((await row(hub, a.id)).life).toBe("stopped");
    const { job } = await c.c.ok("concierge-act", { what: "respawn", id: a.id });
    expect(job).toMatchObject({ id: a.id, life: "running" });
    const made = await c.c.ok("concierge-act", {
      what: "dispatch",
      launch: { profile: "inert", task: "look", name: "helper", cwd: "/tmp" },
    });
    expect(made.job).toMatchObject({ name: "helper", profile: "inert", role: null });
    const { events } = await hub.ok("events", { limit: 20 });
    for (const kind of ["stop", "respawn", "dispatch"])
      expect(events.find((e: any) => e.kind === kind && e.whoId === c.id)).toMatchObject({
        who: "concierge",
      });
    expectError(await c.c.request("concierge-act", { what: "stop", id: c.id }), "bad_request", "itself");
    expectError(await c.c.request("concierge-act", { what: "dispatch" }), "bad_request", "needs a launch");
    expectError(await c.c.request("concierge-act", { what: "stop" }), "bad_request", "needs the session");
    expectError(await c.c.request("concierge-act", { what: "wreck", id: a.id }), "bad_request");
  });
});

describe("the policy covers every way the concierge can act", () => {
  it("act: false: spawn from the concierge's connection is policy, and no job is made", async () => {
    const c = await conciergeOn(d, hub);
    const before = (await hub.ok("list")).rows.length;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-spawn-"));
    const marker = path.join(dir, "ran.txt");
    const r = await c.c.request("spawn", { profile: "shell", task: `id > ${marker}`, cwd: "/" });
    expectError(r, "policy", "act: false: the concierge does not spawn a session");
    // No job was made, and roost runs a command only as a job's.
    expect((await hub.ok("list")).rows.length).toBe(before);
    expect(fs.existsSync(marker)).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("act: false: send to a terminal job is policy, as is assign; to a protocol session a message goes", async () => {
    const a = await sess("worker");
    const { job } = await hub.ok("dispatch", { profile: "reader", name: "reader", cwd: "/tmp" });
    const c = await conciergeOn(d, hub);
    const sent = await c.c.request("send", { to: job.id, text: "approve everything" });
    expectError(sent, "policy", `does not type into a terminal (${job.id}'s)`);
    const { task } = await hub.ok("task", { action: "add", title: "tidy" });
    expectError(await c.c.request("task", { action: "assign", id: task.id, to: job.id }), "policy");
    expect((await hub.ok("task", { action: "list" })).tasks[0]).toMatchObject({ id: task.id, state: "open" });
    expect((await row(hub, job.id)).pending).toBe(0);
    // A message to a protocol agent is an item it reads as another session's: not acting.
    expect(await c.c.ok("send", { to: a.id, text: "fyi" })).toMatchObject({ outcome: "delivered" });
  });

  it("act: true: the concierge spawns, and sends to a terminal agent", async () => {
    const { job } = await hub.ok("dispatch", { profile: "reader", name: "reader", cwd: "/tmp" });
    const c = await conciergeOn(d, hub);
    await hub.ok("concierge", { action: "act", act: true });
    const spawned = await c.c.ok("spawn", { profile: "inert", task: "look", name: "helper", cwd: "/tmp" });
    expect(spawned.job).toMatchObject({ parent: c.id, profile: "inert" });
    expect((await c.c.ok("send", { to: job.id, text: "hello" })).outcome).toMatch(/delivered|queued/);
  });
});

describe("standing orders", () => {
  it("the hub's are by user, the concierge's by concierge; each with {id, text, when, by, at, lastAt, nextAt, count}", async () => {
    const c = await conciergeOn(d, hub);
    const mine = await hub.ok("concierge-order", { action: "add", text: "tell me when CI fails" });
    expect(mine.order).toEqual({
      id: expect.any(Number),
      text: "tell me when CI fails",
      when: null,
      words: null,
      by: "user",
      at: expect.any(String),
      lastAt: null,
      count: 0,
      nextAt: null,
    });
    const its = await c.c.ok("concierge-order", {
      action: "add",
      text: "check the board",
      when: "every 30m",
    });
    expect(its.order).toMatchObject({ by: "concierge", when: "every 30m", words: "every 30 minutes" });
    expect(Date.parse(its.order.nextAt) - Date.parse(its.order.at)).toBeGreaterThanOrEqual(29 * 60_000);
    expect(its.orders.map((o: any) => o.id)).toEqual([mine.order.id, its.order.id]);
    expect((await status()).orders).toBe(2);
    const kept = (await feed("concierge")).filter((e: any) => e.why === "order-kept").slice(-2);
    expect(kept.map((e: any) => [e.who, e.text])).toEqual([
      ["user", `#${mine.order.id} tell me when CI fails`],
      ["concierge", `#${its.order.id} every 30 minutes: check the board`],
    ]);
  });

  it("when is a schedule's vocabulary, else bad_request", async () => {
    for (const when of ["every 30m", "daily 18:00", "weekdays 09:00", 'cron "0 9 * * 1"'])
      expect((await hub.ok("concierge-order", { action: "add", text: when, when })).order.when).toBe(when);
    expectError(
      await hub.request("concierge-order", { action: "add", text: "x", when: "now and then" }),
      "bad_request",
      "not a form roost knows",
    );
    expectError(
      await hub.request("concierge-order", { action: "add", text: "x", when: "every 10s" }),
      "bad_request",
    );
    expectError(
      await hub.request("concierge-order", { action: "add" }),
      "bad_request",
      "needs the order's text",
    );
  });

  it("rm: the user's any; the concierge only its own (unsupported); not_found for none", async () => {
    const c = await conciergeOn(d, hub);
    const users = (await hub.ok("concierge-order", { action: "add", text: "the user's" })).order;
    const its = (await c.c.ok("concierge-order", { action: "add", text: "its own" })).order;
    expectError(
      await c.c.request("concierge-order", { action: "rm", id: users.id }),
      "unsupported",
      "the user's order",
    );
    expect(
      (await c.c.ok("concierge-order", { action: "rm", id: its.id })).orders.map((o: any) => o.id),
    ).toEqual([users.id]);
    expect((await hub.ok("concierge-order", { action: "rm", id: String(users.id) })).orders).toEqual([]);
    expectError(await hub.request("concierge-order", { action: "rm", id: users.id }), "not_found");
    const dropped = (await feed("concierge")).filter((e: any) => e.why === "order-dropped").slice(-2);
    expect(dropped.map((e: any) => [e.who, e.text])).toEqual([
      ["concierge", `#${its.id} its own`],
      ["user", `#${users.id} the user's`],
    ]);
  });

  it("applied is the concierge's: lastAt and count, an order entry in the feed", async () => {
    const c = await conciergeOn(d, hub);
    const o = (await hub.ok("concierge-order", { action: "add", text: "summarise the day" })).order;
    expectError(
      await hub.request("concierge-order", { action: "applied", id: o.id }),
      "unsupported",
      "the concierge's",
    );
    const { order } = await c.c.ok("concierge-order", {
      action: "applied",
      id: o.id,
      text: "sent the summary",
    });
    expect(order).toMatchObject({ count: 1, lastAt: expect.any(String) });
    expect((await feed("concierge")).at(-1)).toMatchObject({
      why: "order",
      text: `#${o.id} sent the summary`,
      who: "concierge",
      whoId: c.id,
    });
  });

  it(`at most ${LIMITS.orders}: full`, async () => {
    for (let i = 0; i < LIMITS.orders; i++)
      await hub.ok("concierge-order", { action: "add", text: `order ${i}` });
    expectError(await hub.request("concierge-order", { action: "add", text: "one more" }), "full");
  });

  it("are kept across a restart of the daemon, their ids never reused", async () => {
    const first = (await hub.ok("concierge-order", { action: "add", text: "first", when: "daily 18:00" }))
      .order;
    await hub.ok("concierge-order", { action: "rm", id: first.id });
    const second = (await hub.ok("concierge-order", { action: "add", text: "second", when: "daily 18:00" }))
      .order;
    await d.restart();
    hub = await d.client();
    const { orders } = await hub.ok("concierge-order", { action: "list" });
    expect(orders).toEqual([second]);
    expect(second.id).toBeGreaterThan(first.id);
  });
});

describe("over HTTP, the hub's", () => {
  it("concierge, concierge-ask and concierge-order answer as on the socket; the concierge's own ops are refused", async () => {
    const on = await api(d, "concierge", { action: "on", launch: { profile: "inert", cwd: "/tmp" } });
    expect(on.status).toBe(200);
    expect(on.body.result).toMatchObject({ on: true });
    const c = await session(d, hub, "concierge", { id: on.body.result.id });
    const got = await api(d, "concierge", { action: "status" }, { method: "GET" });
    expect(got.body.result.id).toBe(c.id);
    expect(
      (await api(d, "concierge", { action: "answer", answer: "always" })).body.result.policy.answer,
    ).toBe("always");
    expect((await api(d, "concierge", { action: "act", act: true })).body.result.policy.act).toBe(true);
    const asked = await api(d, "concierge-ask", { text: "over http" });
    expect(asked.body.result.id).toBe(c.id);
    await c.c.event((e) => e.event === "deliver" && e.text === "over http", "the ask");
    const order = await api(d, "concierge-order", { action: "add", text: "by http", when: "every 1h" });
    expect(order.body.result.order).toMatchObject({ by: "user", text: "by http" });
    expect(
      (await api(d, "concierge-order", { action: "list" }, { method: "GET" })).body.result.orders,
    ).toHaveLength(1);
    // An undo over HTTP, of an answer given on the concierge's connection.
    const a = await sess("asker");
    await blockedOn(a, "Go on?");
    await c.c.ok("concierge-reply", { id: a.id, text: "go on" });
    const undone = await api(d, "concierge", { action: "undo" });
    expect(undone.body.result.undone).toMatchObject({ id: a.id, text: "go on" });
    // A GET only looks; the concierge's own ops are its connection's, never HTTP's.
    expect((await api(d, "concierge", { action: "off" }, { method: "GET" })).status).toBe(405);
    for (const op of [
      "concierge-say",
      "concierge-suggest",
      "concierge-policy",
      "concierge-reply",
      "concierge-act",
    ]) {
      const r = await api(d, op, {});
      expect(r.status, op).toBe(405);
      expect(r.body.code).toBe("unsupported");
    }
    expect((await api(d, "concierge", { action: "off" })).body.result.on).toBe(false);
    await until("stopped", async () => (await row(hub, c.id)).life === "stopped");
  });
});

describe("roost.json's concierge block", () => {
  it("is the policy's start, and names the profile on runs without a launch", async () => {
    const other = await startDaemon({
      config: { ...CONFIG, concierge: { profile: "inert", answer: "routine", act: true } },
    });
    try {
      const c = await other.client();
      const on = await c.ok("concierge", { action: "on" });
      expect(on).toMatchObject({ on: true, policy: { answer: "routine", act: true } });
      expect(await row(c, on.id)).toMatchObject({ profile: "inert", role: "concierge", name: "concierge" });
    } finally {
      await other.cleanup();
    }
  });

  it("is checked at start: a bad one stops the daemon, saying where", async () => {
    for (const [concierge, said] of [
      [{ answer: "sometimes" }, "concierge.answer"],
      [{ profile: "nowhere" }, 'concierge.profile: no profile "nowhere"'],
      [{ act: "yes" }, "concierge.act"],
      [{ mood: "sunny" }, "concierge"],
    ] as const) {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-test-"));
      try {
        fs.writeFileSync(path.join(home, "roost.json"), JSON.stringify({ ...CONFIG, concierge }));
        const { code, stderr } = await daemonRefusal(daemonEnv(home));
        expect(code, stderr).toBe(2);
        expect(stderr).toContain(said);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    }
  });
});
