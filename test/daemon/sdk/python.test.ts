/**
 * The Python client (sdk/python/roost_agent.py) and the Python example agent, through a real daemon:
 * scripted agents (test/fixtures/py_agent.py) run by python3 as protocol jobs. One daemon serves
 * the file (each test has jobs of its own, stopped after it); the test that restarts the daemon
 * has one of its own.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES, OPS } from "../../../sdk/ts/protocol/index.js";
import { FIXTURES, isAlive, ROOT, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { lines, row as rowOf, stepProcess, untilGone, untilRow } from "../../helpers/jobs.js";

const CLIENT = path.join(ROOT, "sdk/python/roost_agent.py");
const EXAMPLE = path.join(ROOT, "sdk/examples/example_agent.py");
const PY_AGENT = path.join(FIXTURES, "py_agent.py");
/** An op name the protocol does not have (and never will: ops are words). */
const NOT_AN_OP = "no-such-op";

const pyProfile = (script: string, env: Record<string, string> = {}) => ({
  command: ["python3", script],
  task: "type",
  protocol: true,
  env,
});

/** The fixture agent as each test runs it (its env), and the example agent. */
const PROFILES = {
  py: pyProfile(PY_AGENT),
  "py-exit-after-2": pyProfile(PY_AGENT, { PY_AGENT_EXIT_AFTER_SEQ: "2" }),
  "py-handle-150": pyProfile(PY_AGENT, { PY_AGENT_HANDLE_MS: "150" }),
  example: pyProfile(EXAMPLE),
};
type ProfileName = keyof typeof PROFILES;

/** The file's daemon, and the one of the test that restarts its daemon (killed after it). */
let shared: TestDaemon | undefined;
let own: TestDaemon | undefined;
/** The jobs the test dispatched on the shared daemon: stopped after it. */
const jobs: string[] = [];
const tmpDirs: string[] = [];
beforeAll(async () => {
  shared = await startDaemon({ config: { agentProfiles: PROFILES } });
});
afterEach(async () => {
  if (shared && jobs.length > 0) {
    const c = await shared.client();
    // A job that already ended says so; that is no failure of the test's.
    for (const id of jobs.splice(0)) await c.request("stop", { id });
    c.close();
  }
  await own?.cleanup();
  own = undefined;
  for (const dir of tmpDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await shared?.cleanup();
});

/**
 * The Python fixture agent (as `profile` runs it) with `task` as its first reply: a job on the
 * file's daemon, or on a daemon of the test's own (`d`) when it must restart it.
 */
async function startPyAgent(task: string, profile: ProfileName = "py", opts: { ownDaemon?: boolean } = {}) {
  let d = shared!;
  if (opts.ownDaemon) {
    own = await startDaemon({ config: { agentProfiles: { py: PROFILES.py } } });
    d = own;
  }
  const c = await d.client();
  const { job } = await c.ok("dispatch", { profile, task, cwd: "/tmp" });
  if (!opts.ownDaemon) jobs.push(job.id);
  const dir = path.join(d.home, "jobs", job.id);
  return { d, c, id: job.id as string, dir, handled: () => lines(path.join(dir, "handled.jsonl")) };
}

describe("the Python client", () => {
  it("parses as Python 3.8", () => {
    const out = execFileSync(
      "python3",
      [
        "-c",
        "import ast,sys; ast.parse(open(sys.argv[1]).read(), feature_version=(3, 8)); print('ok')",
        CLIENT,
      ],
      { encoding: "utf8" },
    );
    expect(out.trim()).toBe("ok");
    // The example too, and both import nothing beyond the standard library.
    execFileSync("python3", [
      "-c",
      "import ast,sys; ast.parse(open(sys.argv[1]).read(), feature_version=(3, 8))",
      EXAMPLE,
    ]);
  });

  it("passes its checks against a fake daemon: coalescing, close, request's errors, replies sent again", () => {
    // Timing and edges a real daemon does not show on demand (test/fixtures/py_client_check.py).
    const out = execFileSync("python3", [path.join(FIXTURES, "py_client_check.py")], {
      encoding: "utf8",
      timeout: 60000,
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(out).toContain("ALL PASSED");
  });

  it("takes the task as reply 1, reports set the row, acks clear pending", async () => {
    const { c, id, dir, handled } = await startPyAgent("first task");
    const row = await until("the row from the report, reply 1 acked", async () => {
      const r = await rowOf(c, id);
      return r.summary === "did: first task" && r.pending === 0 ? r : null;
    });
    expect(row.kind).toBe("protocol");
    expect(row.connected).toBe(true);
    expect(row.agent).toEqual({ name: "py-agent", version: "1.0" });
    expect(row.capabilities).toEqual(["report", "replies"]);
    expect(row.lastSeq).toBe(1);
    expect(handled().map((h) => [h.seq, h.text])).toEqual([[1, "first task"]]);
    expect(handled()[0].main).toBe(false); // on a thread of its own
    expect(JSON.parse(fs.readFileSync(path.join(dir, "agent.json"), "utf8"))).toEqual({ lastSeq: 1 });

    expect((await c.ok("reply", { id, text: "block Deploy now?|yes,no" })).seq).toBe(2);
    const blocked = await until("the row blocked", async () => {
      const r = await rowOf(c, id);
      return r.state === "blocked" && r.pending === 0 ? r : null;
    });
    expect(blocked.question).toBe("Deploy now?");
    expect(blocked.choices).toEqual(["yes", "no"]);
    expect(blocked.status).toBe("waiting");
    expect(blocked.waitingFor).toBe("question");

    await c.ok("reply", { id, text: "done", mode: "steer" });
    const done = await until("the row done", async () => {
      const r = await rowOf(c, id);
      return r.state === "done" && r.pending === 0 ? r : null;
    });
    expect(done.summary).toBe("all done");
    expect(done.question).toBe(null);
    expect(handled().map((h) => h.seq)).toEqual([1, 2, 3]);
    expect(handled()[2].mode).toBe("steer");

    // An op the daemon does not know: its refusal comes to the agent as a RoostError, with the
    // daemon's code and message.
    expect(Object.keys(OPS)).not.toContain(NOT_AN_OP);
    await c.ok("reply", { id, text: `request ${NOT_AN_OP}` });
    const [answer] = await until("the request answered", () => {
      const r = lines(path.join(dir, "requests.jsonl"));
      return r.length ? r : null;
    });
    expect(answer).toMatchObject({ ok: false, code: "bad_request" });
    expect(answer.error).toMatch(new RegExp(`^unknown op "${NOT_AN_OP}"; the ops are: `));
  });

  it("sends a field over its limit cut to it, not refused", async () => {
    const { c, id } = await startPyAgent("long 5000");
    const row = await until("the long summary", async () => {
      const r = await rowOf(c, id);
      return r.summary?.startsWith("xxx") && r.pending === 0 ? r : null;
    });
    // Cut as the TypeScript client cuts (report-fit.test.ts holds the two to one list of cases):
    // to one unit under the limit, then "…".
    const cut = (c: string, n: number) => `${c.repeat(n - 1)}…`;
    expect(row.summary).toBe(cut("x", 500));
    await c.ok("reply", { id, text: "big" });
    const big = await until("every field cut", async () => {
      const r = await rowOf(c, id);
      return r.state === "failed" ? r : null;
    });
    expect(big.summary).toBe(cut("s", 500));
    expect(big.question).toBe(cut("q", 2000));
    expect(big.choices).toHaveLength(20);
    expect(big.choices[0]).toBe(`c0${"c".repeat(197)}…`);
    expect(big.tool).toBe(cut("t", 100));
    expect(big.error).toBe(cut("e", 1000));
    expect(big.name).toBe(cut("n", 200));
    expect(big.life).toBe("running");
    // Counted in UTF-16 units, the tighter count (the daemon counts code points): 600 characters of
    // two units each are cut to 249 and "…".
    await c.ok("reply", { id, text: "wide 600" });
    const wide = await until("the wide summary", async () => {
      const r = await rowOf(c, id);
      return r.state === "working" && r.pending === 0 ? r : null;
    });
    expect(wide.summary).toBe(`${"\u{1F600}".repeat(249)}…`);
  });

  it("lives through a daemon restart: reconnects, says hello, reports, takes the next reply once", async () => {
    const { d, c, id, dir, handled } = await startPyAgent("task one", "py", { ownDaemon: true });
    const first = await until("reply 1 acked", async () => {
      const r = await rowOf(c, id);
      return r.pending === 0 && r.summary === "did: task one" ? r : null;
    });
    const pid = first.pid as number;
    await d.restart("SIGKILL");
    expect(isAlive(pid)).toBe(true);
    const c2 = await d.client();
    expect((await c2.ok("reply", { id, text: "after restart" })).seq).toBe(2);
    const row = await until("reply 2 handled and acked on the new connection", async () => {
      const r = await rowOf(c2, id);
      return r.connected && r.pending === 0 && r.summary === "did: after restart" ? r : null;
    });
    expect(row.pid).toBe(pid);
    expect(row.agent).toEqual({ name: "py-agent", version: "1.0" });
    expect((await c2.ok("reply", { id, text: "stats" })).seq).toBe(3);
    const [stats] = await until("the stats", () => {
      const s = lines(path.join(dir, "stats.jsonl"));
      return s.length ? s : null;
    });
    expect(stats.connections).toBeGreaterThanOrEqual(2); // a hello on each
    expect(stats.daemon.protocol).toBe(1);
    await until("reply 3 acked", async () => (await rowOf(c2, id)).pending === 0);
    expect(handled().map((h) => h.seq)).toEqual([1, 2, 3]);
    expect(new Set(handled().map((h) => h.pid))).toEqual(new Set([pid]));
  });

  it("a kill -9 of the agent mid-handler: respawned, it gets that reply again", async () => {
    const { c, id, dir, handled } = await startPyAgent("task one");
    const first = await until("reply 1 acked", async () => {
      const r = await rowOf(c, id);
      return r.pending === 0 && r.summary === "did: task one" ? r : null;
    });
    // The handler runs until the test opens its gate: the kill lands while it runs, for certain.
    await c.ok("reply", { id, text: "gate open" });
    await until("reply 2 under way", () => lines(path.join(dir, "started.jsonl")).some((s) => s.seq === 2));
    expect(handled().map((h) => h.seq)).toEqual([1]);
    process.kill(first.pid, "SIGKILL");
    await until("the job ended", async () => (await rowOf(c, id)).life === "exited");
    expect((await rowOf(c, id)).pending).toBe(1);
    const { job } = await c.ok("respawn", { id });
    expect(job.pid).not.toBe(first.pid);
    // The new process takes reply 2 again, from its start; then the gate opens.
    await until("reply 2 under way in the new process", () =>
      lines(path.join(dir, "started.jsonl")).some((s) => s.seq === 2 && s.pid === job.pid),
    );
    fs.writeFileSync(path.join(dir, "open"), "");
    await until("reply 2 handled by the new process, acked", async () => {
      const r = await rowOf(c, id);
      return r.pending === 0 && handled().some((h) => h.seq === 2) ? r : null;
    });
    expect(handled().map((h) => [h.seq, h.pid])).toEqual([
      [1, first.pid],
      [2, job.pid],
    ]);
    expect(lines(path.join(dir, "started.jsonl")).map((h) => [h.seq, h.pid])).toEqual([
      [1, first.pid],
      [2, first.pid],
      [2, job.pid],
    ]);
  });

  it("a reply finished but not acked (the agent died in between) is only acked on the next start", async () => {
    const { c, id, dir, handled } = await startPyAgent("task one", "py-exit-after-2");
    await until("reply 1 acked", async () => (await rowOf(c, id)).pending === 0);
    await c.ok("reply", { id, text: "second" });
    const ended = await until("the agent exited after saving reply 2", async () => {
      const r = await rowOf(c, id);
      return r.life === "exited" ? r : null;
    });
    expect(ended.exitCode).toBe(7);
    expect(ended.pending).toBe(1);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "agent.json"), "utf8"))).toEqual({ lastSeq: 2 });
    expect(handled().map((h) => h.seq)).toEqual([1, 2]);
    await c.ok("respawn", { id });
    await until("reply 2 acked by the new process", async () => {
      const r = await rowOf(c, id);
      return r.life === "running" && r.connected && r.pending === 0 ? r : null;
    });
    await c.ok("reply", { id, text: "third" });
    await until("reply 3 handled", () => handled().some((h) => h.seq === 3));
    // Reply 2 was not handled again, only acked.
    expect(handled().map((h) => h.seq)).toEqual([1, 2, 3]);
    expect(lines(path.join(dir, "started.jsonl")).map((s) => s.seq)).toEqual([1, 2, 3]);
  });

  it("hands replies that come faster than the handler over one at a time, in order", async () => {
    const { c, id, handled } = await startPyAgent("task one", "py-handle-150");
    await until("reply 1 handled", () => handled().length === 1);
    const seqs: number[] = [];
    for (let i = 0; i < 6; i++) seqs.push((await c.ok("reply", { id, text: `r${i}` })).seq);
    expect(seqs).toEqual([2, 3, 4, 5, 6, 7]);
    await until(
      "all handled and acked",
      async () => handled().length === 7 && (await rowOf(c, id)).pending === 0,
    );
    const h = handled();
    expect(h.map((x) => x.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(h.slice(1).map((x) => x.text)).toEqual(["r0", "r1", "r2", "r3", "r4", "r5"]);
    for (let i = 1; i < h.length; i++) expect(h[i].start).toBeGreaterThanOrEqual(h[i - 1].end);
    expect(new Set(h.map((x) => x.thread)).size).toBe(1);
  });
});

describe("the Python example agent", () => {
  /** The example agent on `task`, on the file's daemon, in a temp directory of its own. */
  async function startExample(task: string) {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "roost-example-"));
    tmpDirs.push(work);
    const c = await shared!.client();
    const { job } = await c.ok("dispatch", { profile: "example", task, cwd: work });
    jobs.push(job.id);
    return { c, job, work };
  }

  it("runs the task's steps, asks before rm, runs it on yes, ends done", async () => {
    const { c, job, work } = await startExample("echo hello > out.txt; rm out.txt");
    const blocked = await untilRow(c, job.id, "blocked on the rm", (r) => r.state === "blocked");
    expect(blocked.question).toBe("Run `rm out.txt`?");
    expect(blocked.choices).toEqual(["yes", "no"]);
    expect(blocked.agent?.name).toBe("example-agent");
    expect(fs.readFileSync(path.join(work, "out.txt"), "utf8")).toBe("hello\n");

    await c.ok("reply", { id: job.id, text: "yes" });
    const done = await untilRow(c, job.id, "done", (r) => r.state === "done" && r.pending === 0);
    expect(done.summary).toMatch(/2 steps/);
    expect(fs.existsSync(path.join(work, "out.txt"))).toBe(false);
    expect(done.life).toBe("running"); // it waits for a follow-up

    // A follow-up is the next task; "no" skips the destructive step.
    await c.ok("reply", { id: job.id, text: "echo again > keep.txt; echo over > keep.txt" });
    await untilRow(
      c,
      job.id,
      "blocked on the overwrite",
      (r) => r.state === "blocked" && r.question === "Run `echo over > keep.txt`?",
    );
    await c.ok("reply", { id: job.id, text: "no" });
    await untilRow(c, job.id, "done again", (r) => r.state === "done" && r.pending === 0);
    expect(fs.readFileSync(path.join(work, "keep.txt"), "utf8")).toBe("again\n");
  });

  it("a steer reply of stop ends the task under way", async () => {
    const { c, job, work } = await startExample("sleep 30; echo never > never.txt");
    await untilRow(
      c,
      job.id,
      "running the sleep",
      (r) => r.state === "working" && r.tool === "shell" && r.summary === "sleep 30",
    );
    // The step runs in a session of its own, under the agent.
    const step = await until("the step's process", () => stepProcess(job.pid, "sleep 30"));
    await c.ok("reply", { id: job.id, text: "stop", mode: "steer" });
    const stopped = await untilRow(c, job.id, "the task ended", (r) => r.state === "done" && r.pending === 0);
    // Ended by the stop, not by running out: the step's process was killed, the step after it never ran.
    // No step finished, of two (the TypeScript example says the same).
    expect(stopped.summary).toBe("stopped after 0 of 2 steps");
    await untilGone(step);
    expect(fs.existsSync(path.join(work, "never.txt"))).toBe(false);
    expect(stopped.life).toBe("running");
  });
});

describe("the Python client's error codes", () => {
  it('are the daemon\'s list, in the same order (docs/protocol.md, "Error codes")', () => {
    const out = execFileSync(
      "python3",
      [
        "-c",
        "import json, roost_agent; print(json.dumps([list(roost_agent.ERROR_CODES), roost_agent.DISCONNECTED]))",
      ],
      { cwd: path.join(ROOT, "sdk/python"), encoding: "utf8" },
    );
    const [codes, disconnected] = JSON.parse(out);
    const daemons = Object.keys(ERROR_CODES);
    expect(codes).toEqual(daemons);
    expect(daemons).not.toContain(disconnected); // the client's own, never the daemon's
  });
});
