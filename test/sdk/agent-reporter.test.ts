/**
 * pi-roost/agent's Reporter against a fake daemon (a unix socket that records what it gets):
 * hello first on every connection, coalescing, limits, reconnecting, `call`'s errors.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentCallError, findJob, fitReport, Reporter } from "../../sdk/ts/agent/reporter.js";
import { until } from "../helpers/daemon.js";

interface Fake {
  socketPath: string;
  got: { conn: number; op: string; args: any; at: number }[];
  conns: net.Socket[];
  answer: (
    op: string,
    args: any,
  ) => { ok: true; result: unknown } | { ok: false; code: string; error: string };
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
    expect(fake.got[2]!.at - fake.got[1]!.at).toBeGreaterThanOrEqual(950);
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
      { action: "add", title: "write docs", detail: "all of them", after: [1] },
      { action: "claim", id: 3 },
      { action: "done", id: 3, result: "written" },
      { action: "release", id: "4" },
    ]);
    await r.close();
  });
});
