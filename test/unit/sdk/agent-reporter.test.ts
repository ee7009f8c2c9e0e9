/**
 * pi-roost/agent's Reporter against a fake daemon (a unix socket that records what it gets):
 * hello first on every connection, coalescing, limits, reconnecting, `call`'s errors.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentCallError, findJob, findSocket, fitReport, Reporter } from "../../../sdk/ts/agent/index.js";
import type { DeliverEvent } from "../../../sdk/ts/protocol/index.js";
import { until } from "../../helpers/daemon.js";
import { ioTurn } from "../../helpers/processes.js";

interface Fake {
  socketPath: string;
  got: { conn: number; op: string; args: any; at: number }[];
  conns: net.Socket[];
  answer: (
    op: string,
    args: any,
  ) => { ok: true; result: unknown } | { ok: false; code: string; error: string };
  /** Events written just before the answer to `op` (a daemon's pending deliveries). */
  before: (op: string) => object[];
  close(): void;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

async function fakeDaemon(): Promise<Fake> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-fake-"));
  const socketPath = path.join(dir, "roost.sock");
  const fake: Fake = {
    socketPath,
    got: [],
    conns: [],
    answer: (op) =>
      op === "hello"
        ? { ok: true, result: { protocol: 1, daemon: { name: "fake", version: "0" }, capabilities: [] } }
        : { ok: true, result: {} },
    before: () => [],
    close: () => {
      for (const s of fake.conns) s.destroy();
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  const server = net.createServer((s) => {
    const conn = fake.conns.push(s);
    let buf = "";
    s.setEncoding("utf8");
    s.on("error", () => {});
    s.on("data", (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        fake.got.push({ conn, op: msg.op, args: msg.args, at: Date.now() });
        for (const event of fake.before(msg.op)) s.write(`${JSON.stringify(event)}\n`);
        s.write(`${JSON.stringify({ id: msg.id, ...fake.answer(msg.op, msg.args) })}\n`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(socketPath, r));
  cleanups.push(() => fake.close());
  return fake;
}

function reporter(fake: Fake, coalesceMs = 300) {
  const r = new Reporter({
    job: { id: "j1", token: "t", socket: fake.socketPath, dir: null },
    agent: { name: "unit", version: "1" },
    capabilities: ["replies"],
    coalesceMs,
    backoff: { min: 20, max: 100 },
    log: () => {},
  });
  cleanups.push(() => void r.close({ timeoutMs: 100 }));
  return r;
}

describe("Reporter", () => {
  it("finds the job under the new names first, then the old ones; null outside roost", () => {
    expect(findJob({})).toBeNull();
    expect(findJob({ PI_JOB_ID: "j2", PI_JOB_TOKEN: "a", PI_DAEMON_SOCK: "/s", PI_JOB_DIR: "/d" })).toEqual({
      id: "j2",
      token: "a",
      socket: "/s",
      dir: "/d",
    });
    expect(
      findJob({
        ROOST_JOB_ID: "j3",
        PI_JOB_ID: "j2",
        ROOST_JOB_TOKEN: "b",
        PI_JOB_TOKEN: "a",
        ROOST_SOCKET: "/r",
      }),
    ).toEqual({ id: "j3", token: "b", socket: "/r", dir: null });
    expect(() => findJob({ ROOST_JOB_ID: "j3" })).toThrow(/ROOST_JOB_TOKEN/);
  });

  it("fits every field to its limit and fills the rest with null", () => {
    const r = fitReport({
      state: "blocked",
      summary: "s".repeat(600),
      question: "q".repeat(3000),
      choices: Array.from({ length: 30 }, () => "c".repeat(300)),
      tool: "t".repeat(200),
      error: "e".repeat(2000),
      name: `${"n".repeat(199)}😀`,
    });
    expect(r.summary).toHaveLength(500);
    expect(r.question).toHaveLength(2000);
    expect(r.choices).toHaveLength(20);
    expect(r.choices!.every((c) => c.length === 200)).toBe(true);
    expect(r.tool).toHaveLength(100);
    expect(r.error).toHaveLength(1000);
    expect(r.name!.length).toBeLessThanOrEqual(200);
    expect(r.name!.endsWith("n…")).toBe(true); // never half a surrogate pair
    expect(r.status).toBeNull();
    expect(r.waitingFor).toBeNull();
    expect(fitReport({ state: "done", summary: "short" }).summary).toBe("short");
  });

  it("says hello first, then the latest report; coalesces the row's text, the last of it after the interval", async () => {
    const fake = await fakeDaemon();
    const r = reporter(fake, 1000);
    // The interval runs from the first report's send, which is no earlier than this.
    const firstSentNoEarlier = Date.now();
    r.report({ state: "working", summary: "a" });
    await until("hello and report", () => fake.got.length === 2);
    expect(fake.got.map((g) => g.op)).toEqual(["hello", "report"]);
    expect(fake.got[0]!.args).toEqual({
      protocol: 1,
      agent: { name: "unit", version: "1" },
      capabilities: ["report", "replies"],
    });
    expect(fake.got[1]!.args).toMatchObject({
      id: "j1",
      token: "t",
      report: { state: "working", summary: "a" },
    });
    // Two changes of the text in a row: the first is never sent, the last is, after the interval.
    r.report({ state: "working", summary: "b" });
    r.report({ state: "working", summary: "c" });
    await until("the last one, after the interval", () => fake.got.length === 3);
    expect(fake.got.map((g) => g.args.report?.summary ?? null)).toEqual([null, "a", "c"]);
    // Measured from the test's clock, not from the first one's arrival (which a loaded machine delays).
    expect(fake.got[2]!.at - firstSentNoEarlier).toBeGreaterThanOrEqual(1000);
    await r.close();
    expect(fake.got).toHaveLength(3); // the latest was sent: close has nothing more to send
  });

  it("sends a change of state (or question) at once, not held with the text", async () => {
    const fake = await fakeDaemon();
    // The text is held for ten minutes: a state change that arrives at all went at once.
    const r = reporter(fake, 600_000);
    r.report({ state: "working", summary: "a" });
    await until("hello and report", () => fake.got.length === 2);
    r.report({ state: "working", summary: "held" });
    r.report({ state: "blocked", waitingFor: "question", question: "ok?" });
    await until("the state change", () => fake.got.length === 3);
    expect(fake.got[2]!.args.report).toMatchObject({
      state: "blocked",
      waitingFor: "question",
      question: "ok?",
    });
    r.report({ state: "blocked", waitingFor: "question", question: "really?" });
    await until("the new question", () => fake.got.length === 4);
    expect(fake.got[3]!.args.report.question).toBe("really?");
    // The text alone never went: every report sent is one of the changes above.
    expect(fake.got.slice(1).map((g) => [g.args.report.state, g.args.report.summary])).toEqual([
      ["working", "a"],
      ["blocked", null],
      ["blocked", null],
    ]);
    await r.close();
  });

  it("reconnects after the connection is lost, says hello again and sends the latest report", async () => {
    const fake = await fakeDaemon();
    const r = reporter(fake, 0);
    r.report({ state: "working", summary: "one" });
    await until("connected", () => fake.got.length === 2 && r.isConnected);
    const pending = r.call("slow", {});
    fake.answer = (op) => (op === "slow" ? (null as never) : { ok: true, result: {} });
    fake.conns[0]!.destroy();
    await expect(pending).rejects.toMatchObject({ code: "disconnected" });
    r.report({ state: "working", summary: "two" });
    await until("the second connection", () => fake.got.filter((g) => g.conn === 2).length >= 2);
    const second = fake.got.filter((g) => g.conn === 2);
    expect(second.map((g) => g.op).slice(0, 2)).toEqual(["hello", "report"]);
    expect(second[1]!.args.report.summary).toBe("two");
    await r.close();
  });

  it("call: any op on the job's connection; a refusal carries the wire's code", async () => {
    const fake = await fakeDaemon();
    const r = reporter(fake);
    await expect(r.call("task", { action: "list" })).rejects.toMatchObject({ code: "disconnected" });
    fake.answer = (op) =>
      op === "task"
        ? { ok: false, code: "bad_request", error: "unknown op: task" }
        : { ok: true, result: op === "watch" ? { fired: false } : {} };
    r.report({ state: "working" });
    expect(await r.call("watch", { id: "j2", when: "idle" })).toEqual({ fired: false });
    const err = await r.tasks().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentCallError);
    expect(err).toMatchObject({ code: "bad_request", message: "unknown op: task" });
    await r.addTask("write docs", { detail: "all of them", after: [1] }).catch(() => {});
    await r.claimTask(3).catch(() => {});
    await r.taskDone(3, "written").catch(() => {});
    await r.releaseTask("4").catch(() => {});
    expect(fake.got.filter((g) => g.op === "task").map((g) => g.args)).toEqual([
      { action: "list" },
      // An op that makes something carries a request id (the client's own), sent again with it after a restart.
      {
        action: "add",
        title: "write docs",
        detail: "all of them",
        after: [1],
        requestId: expect.stringMatching(/^r-/),
      },
      { action: "claim", id: 3 },
      { action: "done", id: 3, result: "written" },
      { action: "release", id: "4" },
    ]);
    await r.close();
  });

  it("the session's ops: each one's args on the wire, and its result", async () => {
    const fake = await fakeDaemon();
    const r = reporter(fake);
    const results: Record<string, unknown> = {
      peers: { peers: [{ id: "j1", self: true }] },
      send: { outcome: "queued", to: { id: "j2", name: "b" } },
      spawn: { job: { id: "j3", parent: "j1" } },
      handback: { outcome: "delivered", to: { id: "j0", name: "p" } },
      watch: { id: "j3", name: "c", when: "ended", fired: false },
    };
    fake.answer = (op) => ({ ok: true, result: results[op] ?? {} });
    r.report({ state: "working" });
    expect(await r.peers()).toEqual([{ id: "j1", self: true }]);
    expect(await r.send("b", "hi", { mode: "steer" })).toEqual(results.send);
    expect(await r.spawn({ profile: "example-py", task: "ls", name: "c", requestId: "r-1" })).toEqual(
      results.spawn,
    );
    expect(await r.handback("42", { done: false })).toEqual(results.handback);
    expect(await r.watch("c", "ended")).toEqual(results.watch);
    await r.send("b", "plain");
    await r.handback("all");
    const sessionOps = ["peers", "send", "spawn", "handback", "watch"];
    expect(fake.got.filter((g) => sessionOps.includes(g.op)).map((g) => [g.op, g.args])).toEqual([
      ["peers", {}],
      ["send", { to: "b", text: "hi", mode: "steer", requestId: expect.stringMatching(/^r-/) }],
      ["spawn", { profile: "example-py", task: "ls", name: "c", requestId: "r-1" }],
      ["handback", { text: "42", done: false, requestId: expect.stringMatching(/^r-/) }],
      ["watch", { id: "c", when: "ended" }],
      ["send", { to: "b", text: "plain", requestId: expect.stringMatching(/^r-/) }],
      ["handback", { text: "all", requestId: expect.stringMatching(/^r-/) }],
    ]);
    await r.close();
  });

  it("register: peer_register first on every connection, then hello and the report with the id it gave; what came before its answer is held until then", async () => {
    const fake = await fakeDaemon();
    const delivered: { event: DeliverEvent; id: string }[] = [];
    const r: Reporter = new Reporter({
      job: { id: "", token: "", socket: fake.socketPath, dir: null },
      agent: { name: "fg", version: "1" },
      onDeliver: (event) => delivered.push({ event, id: r.job.id }),
      coalesceMs: 0,
      backoff: { min: 20, max: 100 },
      log: () => {},
    });
    cleanups.push(() => void r.close({ timeoutMs: 100 }));
    // A report before register waits: there is no job to speak for yet.
    r.report({ state: "working", summary: "early" });
    await expect(r.call("peers")).rejects.toMatchObject({ code: "disconnected" });
    expect(fake.conns).toHaveLength(0);

    const deliver = { event: "deliver", id: "j7", seq: 4, text: "waited", kind: "message" };
    fake.before = (op) => (op === "peer_register" ? [deliver] : []);
    fake.answer = (op) =>
      op === "peer_register"
        ? { ok: true, result: { id: "j7", token: "tok" } }
        : { ok: true, result: op === "hello" ? { protocol: 1, daemon: {}, capabilities: [] } : {} };
    expect(await r.register({ name: "my pi", pid: 42 })).toEqual({ id: "j7", token: "tok" });
    await until("the report", () => fake.got.length === 3);
    expect(fake.got.map((g) => g.op)).toEqual(["peer_register", "hello", "report"]);
    const key = fake.got[0]!.args.session;
    expect(fake.got[0]!.args).toEqual({ name: "my pi", pid: 42, session: expect.any(String) });
    expect(fake.got[2]!.args).toMatchObject({ id: "j7", token: "tok", report: { summary: "early" } });
    expect(delivered).toEqual([{ event: deliver, id: "j7" }]); // handed on once the id was known
    await expect(r.register({ name: "again" })).rejects.toMatchObject({ code: "bad_request" });

    // The connection lost: the next one registers again, with the same session key, first.
    fake.conns[0]!.destroy();
    await until("the second connection", () => fake.got.filter((g) => g.conn === 2).length === 3);
    const second = fake.got.filter((g) => g.conn === 2);
    expect(second.map((g) => g.op)).toEqual(["peer_register", "hello", "report"]);
    expect(second[0]!.args.session).toBe(key);
    await r.close();
  });

  it("register: a refusal rejects with its code, connects no more, and register may be tried again", async () => {
    const fake = await fakeDaemon();
    const r = new Reporter({
      job: { id: "", token: "", socket: fake.socketPath, dir: null },
      agent: { name: "fg", version: "1" },
      backoff: { min: 20, max: 100 },
      log: () => {},
    });
    cleanups.push(() => void r.close({ timeoutMs: 100 }));
    fake.answer = (op, args) =>
      op === "peer_register" && args.name === "concierge"
        ? { ok: false, code: "bad_request", error: '"concierge" is reserved' }
        : { ok: true, result: op === "peer_register" ? { id: "j2", token: "t2" } : {} };
    // The refusal gives its connection up; a reconnection would be a timer, armed when that
    // connection's end is seen (a turn or two later, in this process): on a clock the test holds.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      await expect(r.register({ name: "concierge", session: "k" })).rejects.toMatchObject({
        code: "bad_request",
        message: '"concierge" is reserved',
      });
      const conn = fake.conns[0]!;
      while (!(conn.destroyed || conn.readableEnded)) await ioTurn(); // its end seen at both ends
      expect(vi.getTimerCount()).toBe(0); // no reconnection waits
      vi.advanceTimersByTime(10_000);
    } finally {
      vi.useRealTimers();
    }
    expect(fake.conns).toHaveLength(1); // not made again
    expect(await r.register({ name: "mine", session: "k" })).toEqual({ id: "j2", token: "t2" });
    // An agent roost started is a job already.
    const job = reporter(fake);
    await expect(job.register({ name: "x" })).rejects.toMatchObject({ code: "bad_request" });
    expect(findSocket({ ROOST_SOCKET: "/a.sock", ROOST_HOME: "/h" })).toBe("/a.sock");
    expect(findSocket({ ROOST_HOME: "/h" })).toBe("/h/roost.sock");
    await r.close();
  });
});
