/**
 * The wire's rules (docs/protocol.md, "The socket", "Error codes", "The job's identity",
 * "report" and "The hub's ops"), against a real daemon with raw socket
 * clients: JSON lines, bad input, report limits, tokens, the job's environment, and what a
 * session connection may not do. A second, well-behaved client is answered throughout.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPS, type OpName, SESSION_OPS, SHARED_OPS } from "../../../sdk/ts/protocol/index.js";
import { isAlive, until } from "../../helpers/daemon.js";
import type { RawClient, Response } from "../../helpers/raw-client.js";
import { witnessedDaemon } from "../../helpers/witness.js";

/** The daemon, and its witness: a well-behaved client, answered normally whatever the others send. */
const served = witnessedDaemon();

/** Waits for the answer with this id (written raw). */
const answerTo = (c: RawClient, id: unknown, what = `the answer to #${JSON.stringify(id)}`) =>
  c.waitFor(() => c.responses.find((r) => r.id === id), what);

const line = (msg: unknown) => `${JSON.stringify(msg)}\n`;

function expectError(r: Response, code: string, ...mentions: string[]): void {
  expect(r.ok, JSON.stringify(r)).toBe(false);
  expect(r.code, JSON.stringify(r)).toBe(code);
  expect(typeof r.error).toBe("string");
  expect(r.error!.length).toBeGreaterThan(0);
  for (const m of mentions) expect(r.error, JSON.stringify(r)).toContain(m);
}

/** The job's environment, as its process has it (/proc/<pid>/environ). */
function environOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

interface Job {
  id: string;
  pid: number;
  token: string;
  env: Record<string, string>;
}

/** A running inert protocol job, with the token read from its own environment. */
async function inertJob(c: RawClient = served.witness, task?: string): Promise<Job> {
  const { job } = await c.ok("dispatch", { profile: "inert", cwd: "/tmp", task });
  expect(job.life).toBe("running");
  expect(typeof job.pid).toBe("number");
  // Between the pty host's fork and the exec, the process still has the host's environment.
  const env = await until(`the environment of ${job.id}`, () => {
    const e = environOf(job.pid);
    return e.ROOST_JOB_ID === job.id ? e : null;
  });
  return { id: job.id, pid: job.pid, token: env.ROOST_JOB_TOKEN!, env };
}

const reportArgs = (job: Job, report: Record<string, unknown>) => ({
  id: job.id,
  token: job.token,
  report,
});

describe("JSON lines", () => {
  it("answers a request with its id, a number or a string", async () => {
    const c = await served.d.client();
    c.write(line({ id: 7, op: "list", args: {} }));
    const byNumber = await answerTo(c, 7);
    expect(byNumber.ok).toBe(true);
    expect(Array.isArray(byNumber.result.rows)).toBe(true);

    c.write(line({ id: "req-α", op: "list", args: {} }));
    const byString = await answerTo(c, "req-α");
    expect(byString.ok).toBe(true);

    c.write(line({ id: 0, op: "list" })); // no args at all: {} for an op that needs none
    expect((await answerTo(c, 0)).ok).toBe(true);
    c.write(line({ id: -2.5, op: "list", args: {} }));
    expect((await answerTo(c, -2.5)).ok).toBe(true);

    // Each response is one JSON line carrying exactly the envelope's fields.
    expect(Object.keys(byNumber).sort()).toEqual(["id", "ok", "result"]);
    expect(c.responses.length).toBe(4);
  });

  it("answers requests written in one chunk in order, a slow one before the quick ones after it", async () => {
    const c = await served.d.client();
    c.write(
      [
        line({ id: 1, op: "dispatch", args: { profile: "inert", cwd: "/tmp" } }), // starts a process
        line({ id: 2, op: "list", args: {} }),
        "{not json\n",
        line({ id: 4, op: "stop", args: { id: "no-such-job" } }),
        line({ id: 5, op: "events", args: { limit: 5 } }),
        line({ id: "six", op: "list", args: {} }),
      ].join(""),
    );
    await c.waitFor(() => (c.responses.length === 6 ? true : undefined), "six answers");
    expect(c.responses.map((r) => r.id)).toEqual([1, 2, null, 4, 5, "six"]);
    const [dispatched, listed, bad, stopped, events, last] = c.responses as [
      Response,
      Response,
      Response,
      Response,
      Response,
      Response,
    ];
    expect(dispatched.ok).toBe(true);
    expect(dispatched.result.job.profile).toBe("inert");
    expect(dispatched.result.job.life).toBe("running");
    // The list is answered at once when alone; here its answer waited for the dispatch's.
    expect(listed.ok).toBe(true);
    expectError(bad, "bad_request");
    expectError(stopped, "not_found");
    expect(events.ok).toBe(true);
    expect(last.ok).toBe(true);
    await c.ok("stop", { id: dispatched.result.job.id });
  });

  it("reads a request split across many small writes, even inside a UTF-8 character", async () => {
    const c = await served.d.client();
    const job = await inertJob(c);
    const name = "café ☕ 𝄞 split";
    const bytes = Buffer.from(line({ id: 42, op: "rename", args: { id: job.id, name } }));
    for (let i = 0; i < bytes.length; i++) {
      c.write(bytes.subarray(i, i + 1));
      if (i % 8 === 0) await new Promise((r) => setImmediate(r));
    }
    const r = await answerTo(c, 42);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const [row] = (await served.witness.ok("list", { id: job.id })).rows;
    expect(row.name).toBe(name);
    // A request whose line arrives in two writes far apart is read once it is whole. Between them
    // the daemon answers another connection twice: it has read the first part by then (it was
    // there to read before the other's requests were sent), and answers in order: anything it
    // made of the part alone would come before the whole line's answer.
    const half = line({ id: 43, op: "list", args: { id: job.id } });
    const before = c.responses.length;
    c.write(half.slice(0, 10));
    for (let i = 0; i < 2; i++) await served.witness.ok("list", {});
    expect(c.responses.length).toBe(before);
    c.write(half.slice(10));
    expect((await answerTo(c, 43)).ok).toBe(true);
    expect(c.responses.slice(before).map((r) => r.id)).toEqual([43]);
    await c.ok("stop", { id: job.id });
  });

  it("ignores unknown fields in the envelope and in args", async () => {
    const c = await served.d.client();
    c.write(line({ id: 1, op: "list", args: { future: true, nested: { a: [1] } }, trace: "x", v: 2 }));
    const listed = await answerTo(c, 1);
    expect(listed.ok, JSON.stringify(listed)).toBe(true);
    expect(Array.isArray(listed.result.rows)).toBe(true);
    c.write(line({ id: 2, op: "events", args: { limit: 1, someday: "maybe" }, meta: {} }));
    expect((await answerTo(c, 2)).ok).toBe(true);
    c.write(
      line({ id: 3, op: "hello", args: { protocol: 1, agent: { name: "a", version: "1", x: 1 }, y: 2 } }),
    );
    const hello = await answerTo(c, 3);
    expect(hello.ok, JSON.stringify(hello)).toBe(true);
  });

  it("accepts a report with an unknown field, and does not put that field on the row", async () => {
    const job = await inertJob();
    const a = await served.d.client();
    const r = await a.request(
      "report",
      reportArgs(job, { state: "working", summary: "with extras", fromTheFuture: { big: "x".repeat(1000) } }),
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const [row] = (await served.witness.ok("list", { id: job.id })).rows;
    expect(row.summary).toBe("with extras");
    expect(row).not.toHaveProperty("fromTheFuture");
    await served.witness.ok("stop", { id: job.id });
  });
});

describe("bad requests", () => {
  it("answers a line that is not JSON with id null and bad_request, and the connection stays usable", async () => {
    const c = await served.d.client();
    c.write("this is not json\n");
    const r = await c.waitFor(() => c.responses[0], "the answer to a malformed line");
    expect(r.id).toBeNull();
    expectError(r, "bad_request");
    // The witness, meanwhile.
    expect((await served.witness.request("list", {})).ok).toBe(true);
    c.write('{"id": 5, "op": "list", "args": {}\n'); // truncated JSON with an id in it: still not JSON
    const truncated = await c.waitFor(() => c.responses[1], "the answer to truncated JSON");
    expect(truncated.id).toBeNull();
    expectError(truncated, "bad_request");
    // Invalid UTF-8 is not JSON either, and breaks nothing.
    c.write(Buffer.from([0xff, 0xfe, 0x7b, 0x0a]));
    const binary = await c.waitFor(() => c.responses[2], "the answer to invalid bytes");
    expectError(binary, "bad_request");
    expect(binary.id).toBeNull();
    // And the connection goes on.
    expect((await c.request("list", {})).ok).toBe(true);
    expect(c.isClosed).toBe(false);
  });

  it("answers JSON that is not a request with bad_request, echoing the id when there was one", async () => {
    const c = await served.d.client();
    const cases: [string, unknown][] = [
      ["[1, 2, 3]\n", null],
      ["42\n", null],
      ['"list"\n', null],
      ["null\n", null],
      ["true\n", null],
      ['{"id": 11, "args": {}}\n', 11], // no op
      ['{"id": "s12", "op": 5, "args": {}}\n', "s12"], // op not a string
      ['{"id": 13, "op": "list", "args": [1]}\n', 13], // args an array
      ['{"id": 14, "op": "list", "args": "x"}\n', 14], // args a string
      ['{"id": 15, "op": "list", "args": 3}\n', 15], // args a number
      ['{"id": 16, "op": "list", "args": null}\n', 16], // args null
      ['{"id": 17, "op": "", "args": {}}\n', 17], // an empty op
      ['{"id": {"x": 1}, "op": "nope"}\n', null], // an id that is no id
    ];
    for (const [text] of cases) c.write(text);
    await c.waitFor(() => (c.responses.length === cases.length ? true : undefined), "every answer");
    cases.forEach(([text, id], i) => {
      const r = c.responses[i]!;
      expect(r.id, text).toEqual(id);
      expectError(r, "bad_request");
    });
    const argsArray = c.responses[7]!;
    expect(argsArray.error).toContain("args");
    expect((await c.request("list", {})).ok).toBe(true);
  });

  it("answers an unknown op with bad_request naming it", async () => {
    const c = await served.d.client();
    const r = await c.request("frobnicate", {});
    expectError(r, "bad_request", "frobnicate");
    expect((await served.witness.request("list", {})).ok).toBe(true);
    expect((await c.request("list", {})).ok).toBe(true);
  });

  it("answers wrong types and missing fields in args with bad_request naming the field", async () => {
    const c = await served.d.client();
    const job = await inertJob(c);
    const cases: [string, unknown, string][] = [
      ["reply", { id: job.id }, "text"],
      ["reply", { id: job.id, text: 5 }, "text"],
      ["reply", { id: job.id, text: "hi", mode: "sideways" }, "mode"],
      ["reply", { text: "hi" }, "id"],
      ["pin", { id: job.id, pinned: "yes" }, "pinned"],
      ["pin", { id: job.id }, "pinned"],
      ["dispatch", { profile: 3 }, "profile"],
      ["dispatch", {}, "profile"],
      ["dispatch", { profile: "inert", cwd: 7 }, "cwd"],
      ["dispatch", { profile: "inert", requestId: "has space" }, "requestId"],
      ["rename", { id: job.id, name: "" }, "name"],
      ["rename", { id: job.id, name: "n".repeat(201) }, "name"],
      ["reorder", { ids: "j1" }, "ids"],
      ["events", { limit: 0 }, "limit"],
      ["events", { limit: "ten" }, "limit"],
      ["events", { after: -1 }, "after"],
      ["list", { id: 12 }, "id"],
      ["stop", {}, "id"],
      ["hello", { protocol: "1" }, "protocol"],
      ["hello", {}, "protocol"],
      ["ack", { id: job.id, token: job.token, seq: 0 }, "seq"],
      ["report", { id: job.id, token: job.token }, "report"],
      ["report", { id: job.id, report: { state: "working" } }, "token"],
    ];
    for (const [op, args, field] of cases) {
      const r = await c.request(op, args);
      expect(r.ok, `${op} ${JSON.stringify(args)}`).toBe(false);
      expect(r.code, `${op} ${JSON.stringify(args)}: ${r.error}`).toBe("bad_request");
      expect(r.error, `${op} ${JSON.stringify(args)}`).toContain(field);
    }
    // Nothing of it took effect.
    const [row] = (await served.witness.ok("list", { id: job.id })).rows;
    expect(row.pinned).toBe(false);
    expect(row.pending).toBe(0);
    expect(c.isClosed).toBe(false);
    await c.ok("stop", { id: job.id });
  });
});

describe("report limits", () => {
  let job: Job;
  let agent: RawClient;
  beforeAll(async () => {
    job = await inertJob();
    agent = await served.d.client();
    expect((await agent.request("report", reportArgs(job, { state: "working", summary: "ok" }))).ok).toBe(
      true,
    );
  });
  afterAll(async () => {
    await served.witness.ok("stop", { id: job.id });
  });

  const over: [string, Record<string, unknown>, string][] = [
    ["summary of 501", { summary: "s".repeat(501) }, "summary"],
    ["question of 2001", { state: "blocked", question: "q".repeat(2001) }, "question"],
    ["21 choices", { choices: Array.from({ length: 21 }, (_, i) => `c${i}`) }, "choices"],
    ["a choice of 201", { choices: ["fine", "c".repeat(201)] }, "choices"],
    ["tool of 101", { tool: "t".repeat(101) }, "tool"],
    ["error of 1001", { state: "failed", error: "e".repeat(1001) }, "error"],
    ["name of 201", { name: "n".repeat(201) }, "name"],
    ["state sleeping", { state: "sleeping" }, "state"],
    ["no state", { state: undefined, summary: "no state" }, "state"],
    ["summary a number", { summary: 5 }, "summary"],
    ["status unknown", { status: "napping" }, "status"],
    ["waitingFor unknown", { state: "blocked", waitingFor: "godot" }, "waitingFor"],
    ["usage of 70 KB", { usage: { notes: "u".repeat(70_000) } }, "usage"],
    [
      "attachRepaint 33 levels deep",
      { attachRepaint: JSON.parse(`${"[".repeat(33)}${"]".repeat(33)}`) },
      "attachRepaint",
    ],
  ];
  for (const [what, fields, field] of over) {
    it(`refuses a report with ${what}, naming ${field}, and keeps the row as it was`, async () => {
      const r = await agent.request("report", reportArgs(job, { state: "working", ...fields }));
      expectError(r, "bad_request", field);
      expect((await served.witness.request("list", {})).ok).toBe(true);
      const [row] = (await served.witness.ok("list", { id: job.id })).rows;
      expect(row.summary).toBe("ok");
      expect(row.state).toBe("working");
    });
  }

  it("takes a report with every field at its limit", async () => {
    const full = {
      state: "blocked",
      status: "waiting",
      waitingFor: "question",
      summary: "s".repeat(500),
      question: "q".repeat(2000),
      choices: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(200, "c")),
      tool: "t".repeat(100),
      error: "e".repeat(1000),
      name: "n".repeat(200),
    };
    const r = await agent.request("report", reportArgs(job, full));
    expect(r.ok, JSON.stringify(r).slice(0, 300)).toBe(true);
    const [row] = (await served.witness.ok("list", { id: job.id })).rows;
    expect(row.summary).toBe(full.summary);
    expect(row.question).toBe(full.question);
    expect(row.choices).toEqual(full.choices);
    expect(row.name).toBe(full.name);
    // Back to the row the other cases expect.
    expect((await agent.request("report", reportArgs(job, { state: "working", summary: "ok" }))).ok).toBe(
      true,
    );
  });
});

describe("tokens and the job's identity", () => {
  let a: Job;
  let b: Job;
  beforeAll(async () => {
    a = await inertJob();
    b = await inertJob();
  });
  afterAll(async () => {
    await served.witness.ok("stop", { id: a.id });
    await served.witness.ok("stop", { id: b.id });
  });

  it("refuses a wrong token, another job's token, and names a job that does not exist", async () => {
    const c = await served.d.client();
    const report = { state: "working", summary: "impostor" };
    expectError(await c.request("report", { id: a.id, token: "wrong", report }), "unauthorized");
    expectError(await c.request("report", { id: a.id, token: `${a.token}x`, report }), "unauthorized");
    expectError(await c.request("report", { id: a.id, token: b.token, report }), "unauthorized");
    expectError(await c.request("ack", { id: a.id, token: b.token, seq: 1 }), "unauthorized");
    expectError(await c.request("report", { id: "j999999", token: a.token, report }), "not_found");
    expectError(await c.request("ack", { id: "j999999", token: a.token, seq: 1 }), "not_found");
    expect((await served.witness.request("list", {})).ok).toBe(true);
    // None of it reached the rows.
    const rows = (await served.witness.ok("list", {})).rows;
    for (const id of [a.id, b.id]) {
      const row = rows.find((r: any) => r.id === id);
      expect(row.summary).not.toBe("impostor");
      expect(row.connected).toBe(false);
    }
    // Its own token is good.
    expect((await c.request("report", reportArgs(a, { state: "working", summary: "mine" }))).ok).toBe(true);
    const [row] = (await served.witness.ok("list", { id: a.id })).rows;
    expect(row.summary).toBe("mine");
    expect(row.connected).toBe(true);
  });

  it("refuses the report of a job that has ended (unauthorized), and of one removed (not_found)", async () => {
    const job = await inertJob(served.witness, "its task");
    const c = await served.d.client();
    expect((await c.request("report", reportArgs(job, { state: "working", summary: "alive" }))).ok).toBe(
      true,
    );
    await served.witness.ok("stop", { id: job.id });
    // The connection it reported on ends with it (it hears at once); on a new one, its token no
    // longer speaks for it.
    await c.closed;
    expectError(
      await (await served.d.client()).request("report", reportArgs(job, { state: "done", summary: "after" })),
      "unauthorized",
    );
    const [row] = (await served.witness.ok("list", { id: job.id })).rows;
    expect(row).toMatchObject({ life: "stopped", summary: "alive", pending: 1 });
    await served.witness.ok("rm", { id: job.id });
    const late = await served.d.client();
    expectError(await late.request("report", reportArgs(job, { state: "working" })), "not_found");
    expectError(await late.request("ack", { id: job.id, token: job.token, seq: 1 }), "not_found");
  });

  it("refuses the ack of a job that has ended (unauthorized): its waiting reply stays waiting", async () => {
    const job = await inertJob(served.witness, "its task"); // reply 1 waits, unacked
    const c = await served.d.client();
    expect((await c.request("report", reportArgs(job, { state: "working", summary: "alive" }))).ok).toBe(
      true,
    );
    await served.witness.ok("stop", { id: job.id });
    await c.closed; // its reporting connection ended with it
    const again = await served.d.client();
    expectError(await again.request("ack", { id: job.id, token: job.token, seq: 1 }), "unauthorized");
    const { replies } = await served.witness.ok("pending", { id: job.id });
    expect(replies.map((r: any) => [r.seq, r.text])).toEqual([[1, "its task"]]);
    await served.witness.ok("rm", { id: job.id });
  });

  it("gives the job its identity under the new names and the old ones, with the same values", () => {
    for (const job of [a, b]) {
      const env = environOf(job.pid);
      expect(env.ROOST_JOB_ID).toBe(job.id);
      expect(env.ROOST_JOB_TOKEN).toMatch(/^.{16,}$/);
      expect(env.ROOST_SOCKET).toBe(served.d.socket);
      expect(env.ROOST_JOB_DIR).toBe(path.join(served.d.home, "jobs", job.id));
      expect(fs.statSync(env.ROOST_JOB_DIR!).isDirectory()).toBe(true);
      expect(env.PI_JOB_ID).toBe(env.ROOST_JOB_ID);
      expect(env.PI_JOB_TOKEN).toBe(env.ROOST_JOB_TOKEN);
      expect(env.PI_DAEMON_SOCK).toBe(env.ROOST_SOCKET);
      expect(env.PI_JOB_DIR).toBe(env.ROOST_JOB_DIR);
    }
    expect(a.token).not.toBe(b.token);
  });
});

describe("a session connection", () => {
  /**
   * Every op of the schema set but a session's own (the agent's and the peer ops) is a hub op, and
   * refused on a session but for the shared ones (the task board: test/daemon/board.test.ts).
   */
  const HUB_OPS = Object.keys(OPS).filter(
    (op) => !SESSION_OPS.includes(op as OpName) && !SHARED_OPS.includes(op as OpName),
  );
  /** Args each hub op would act on, were it allowed (a new op gets `{}`: refused before its args). */
  const ARGS: Record<string, (id: string) => unknown> = {
    dispatch: () => ({ profile: "inert", cwd: "/tmp" }),
    stop: (id) => ({ id }),
    rm: (id) => ({ id }),
    respawn: (id) => ({ id }),
    reply: (id) => ({ id, text: "from a session" }),
    pin: (id) => ({ id, pinned: true }),
    rename: (id) => ({ id, name: "taken over" }),
    reorder: (id) => ({ ids: [id] }),
    subscribe: () => ({}),
    events: () => ({}),
    list: () => ({}),
    attach: (id) => ({ id }),
    detach: (id) => ({ id }),
    input: (id) => ({ id, data: "typed by a session\r" }),
    resize: (id) => ({ id, cols: 100, rows: 30 }),
    pending: (id) => ({ id }),
    profiles: () => ({}),
    whoami: () => ({}),
    token: () => ({ action: "create", name: "from-a-session" }),
    "remotes-reload": () => ({}),
    shutdown: () => ({}),
    schedules: () => ({}),
    "schedule-add": () => ({ when: "every 1m", launch: { profile: "inert", task: "t", cwd: "/tmp" } }),
    "schedule-rm": () => ({ id: "s1" }),
    "schedule-pause": () => ({ id: "s1", paused: true }),
    "schedule-run": () => ({ id: "s1" }),
    "schedule-when": () => ({ when: "every 1m" }),
  };

  it("the hub ops are every op but the agent's: the ones a session must not use among them", () => {
    expect(HUB_OPS).toEqual(
      expect.arrayContaining([
        "token",
        "input",
        "attach",
        "resize",
        "detach",
        "pending",
        "profiles",
        "whoami",
      ]),
    );
    expect(HUB_OPS).toEqual(expect.arrayContaining(["dispatch", "reply", "stop", "rm", "shutdown"]));
  });

  async function expectHubOpsRefused(c: RawClient, job: Job): Promise<void> {
    const before = (await served.witness.ok("list", {})).rows.length;
    // shutdown last: were it done, nothing after it could be checked.
    for (const op of [...HUB_OPS.filter((o) => o !== "shutdown"), "shutdown"]) {
      const r = await c.request(op, (ARGS[op] ?? (() => ({})))(job.id));
      expect(r.code, `${op}: ${JSON.stringify(r)}`).toBe("unsupported");
      expect(r.ok).toBe(false);
      expect(r.error).toContain(`${op} is a hub op`);
    }
    // Nothing was done: no job started, the job untouched and still running, no reply queued,
    // no token made, no screen or output sent to it.
    const rows = (await served.witness.ok("list", {})).rows;
    expect(rows.length).toBe(before);
    const row = rows.find((r: any) => r.id === job.id);
    expect(row.life).toBe("running");
    expect(row.pinned).toBe(false);
    expect(row.name).not.toBe("taken over");
    expect(row.pending).toBe(0);
    expect((await served.witness.ok("token", { action: "list" })).tokens).toEqual([]);
    expect(c.events.filter((e) => e.event !== "deliver")).toEqual([]);
  }

  it("after hello: answers hello, refuses every hub op", async () => {
    const job = await inertJob();
    const c = await served.d.client();
    const r = await c.request("hello", {
      protocol: 1,
      agent: { name: "probe", version: "1.0" },
      capabilities: ["report", "replies"],
    });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.result.protocol).toBe(1);
    expect(r.result.daemon.name).toBe("roost");
    expect(typeof r.result.daemon.version).toBe("string");
    expect(Array.isArray(r.result.capabilities)).toBe(true);
    expect(r.result.capabilities).toContain("replies");
    await expectHubOpsRefused(c, job);
    // A higher protocol than the daemon's is answered with the daemon's own.
    const newer = await c.request("hello", { protocol: 7 });
    expect(newer.ok).toBe(true);
    expect(newer.result.protocol).toBe(1);
    await served.witness.ok("stop", { id: job.id });
  });

  it("after a report (no hello): refuses every hub op; its agent ops still work", async () => {
    const job = await inertJob();
    const c = await served.d.client();
    expect((await c.request("report", reportArgs(job, { state: "working", summary: "here" }))).ok).toBe(true);
    await expectHubOpsRefused(c, job);
    expect((await c.request("report", reportArgs(job, { state: "working", summary: "still" }))).ok).toBe(
      true,
    );
    expect((await c.request("hello", { protocol: 1 })).ok).toBe(true);
    const [row] = (await served.witness.ok("list", { id: job.id })).rows;
    expect(row.summary).toBe("still");
    await served.witness.ok("stop", { id: job.id });
  });

  it("is the job's until it closes, fully or only its side: then the row says disconnected", async () => {
    const job = await inertJob();
    const connectedNow = async () => (await served.witness.ok("list", { id: job.id })).rows[0].connected;
    for (const close of ["destroy", "end"] as const) {
      const c = await served.d.client();
      expect((await c.request("report", reportArgs(job, { state: "working", summary: close }))).ok).toBe(
        true,
      );
      expect(await connectedNow()).toBe(true);
      if (close === "destroy") c.close();
      else c.socket.end();
      await until(`disconnected after ${close}`, async () => (await connectedNow()) === false);
      await c.closed;
    }
    await served.witness.ok("stop", { id: job.id });
  });

  it("folds a hello's agent name with newlines to one line on the row (after a report)", async () => {
    const job = await inertJob();
    const c = await served.d.client();
    const hello = await c.request("hello", {
      protocol: 1,
      agent: { name: "multi\nline\r\n\tagent\u2028name", version: "2.0\n1" },
      capabilities: ["report"],
    });
    expect(hello.ok).toBe(true);
    expect((await c.request("report", reportArgs(job, { state: "working", name: "a\nsession" }))).ok).toBe(
      true,
    );
    const [row] = (await served.witness.ok("list", { id: job.id })).rows;
    expect(row.agent.name).toBe("multi line agent name");
    expect(row.agent.version).toBe("2.0 1");
    expect(row.name).toBe("a session");
    expect(row.capabilities).toEqual(["report"]);
    await served.witness.ok("stop", { id: job.id });
  });
});

describe("a value nested too deep to encode", () => {
  // A daemon of its own: what such a report leaves behind must not reach the other tests.
  const own = witnessedDaemon();

  it("in a report harms nothing else: the hub's list, the pushes about other jobs", async () => {
    const deepJob = await inertJob(own.witness);
    const other = await inertJob(own.witness);
    const subscriber = await own.d.client();
    await subscriber.ok("subscribe", {});
    // 100000 arrays deep: 200 KB of JSON, which JSON.parse takes and JSON.stringify cannot say.
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const agent = await own.d.client();
    agent.write(
      `{"id": 1, "op": "report", "args": {"id": ${JSON.stringify(deepJob.id)}, "token": ${JSON.stringify(
        deepJob.token,
      )}, "report": {"state": "working", "summary": "deep", "attachSignal": ${deep}}}}\n`,
    );
    const r = await answerTo(agent, 1);
    // Refused as malformed, naming the field; and nothing else may break.
    expectError(r, "bad_request");
    expect(r.error).toContain("attachSignal");
    const listed = await own.witness.request("list", {});
    expect(listed.ok, JSON.stringify(listed)).toBe(true);
    expect(listed.result.rows.some((row: any) => row.id === other.id)).toBe(true);
    const otherAgent = await own.d.client();
    expect(
      (await otherAgent.request("report", reportArgs(other, { state: "working", summary: "other news" }))).ok,
    ).toBe(true);
    await subscriber.event(
      (e) => e.event === "row" && e.row.id === other.id && e.row.summary === "other news",
      "the other job's row pushed",
    );
    expect(own.d.output).not.toMatch(/uncaught|unhandled/);
    expect(isAlive(own.d.pid)).toBe(true);
  });
});
