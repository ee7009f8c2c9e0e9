/**
 * pi-roost/agent (sdk/ts/agent) against a real daemon: a test agent (test/fixtures/sdk-agent.mjs)
 * on the BUILT client takes its task as reply 1, sets its row, acks, lives through a daemon
 * restart, is killed mid-reply and started again, loses an ack, and exits. `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, ROOT, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { lines, row as rowOf, stepProcess, untilGone } from "../../helpers/jobs.js";

const DIST = path.join(ROOT, "dist/sdk/ts/agent");

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

beforeAll(() => {
  if (!fs.existsSync(path.join(DIST, "index.js"))) throw new Error("build first: npm run build");
});

/** A daemon with the sdk test agent as profile "agent", one job dispatched, its task handled and acked. */
async function startAgent(env: Record<string, string> = {}) {
  d = await startDaemon({
    config: {
      agentProfiles: {
        agent: {
          command: [process.execPath, path.join(FIXTURES, "sdk-agent.mjs")],
          task: "type",
          protocol: true,
          env,
        },
      },
    },
  });
  const c = await d.client();
  const { job } = await c.ok("dispatch", { profile: "agent", task: "task one", cwd: "/tmp" });
  const id = job.id as string;
  const dir = path.join(d.home, "jobs", id);
  const file = (name: string) => path.join(dir, name);
  await until(
    "the task handled and acked",
    async () => (await rowOf(c, id)).pending === 0 && lines(file("handled.jsonl")).length === 1,
  );
  return { c, id, pid: job.pid as number, dir, file };
}

describe("pi-roost/agent's files", () => {
  it("import nothing but node builtins and each other once built", () => {
    const files = fs.readdirSync(DIST).filter((f) => f.endsWith(".js"));
    expect(files).toEqual(expect.arrayContaining(["index.js", "reporter.js"]));
    const specifier =
      /(?:^|[\s;])(?:import|export)\s*(?:[^"'`;]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']/g;
    for (const f of files) {
      const text = fs.readFileSync(path.join(DIST, f), "utf8");
      const specs = [...text.matchAll(specifier)].map((m) => m[1] ?? m[2]!);
      for (const s of specs) {
        // The protocol's numbers (limits.js), its line splitter (lines.js), the board's words
        // (board-view.js) and a batch's text (text.js) are the only imports from outside; each
        // imports nothing.
        const ok =
          s.startsWith("node:") ||
          (s.startsWith("./") && files.includes(s.slice(2))) ||
          s === "../protocol/limits.js" ||
          s === "../protocol/lines.js" ||
          s === "../protocol/board-view.js" ||
          s === "../protocol/text.js";
        expect(ok, `${f} imports ${s}`).toBe(true);
      }
      expect(text).not.toMatch(/\brequire\(/);
    }
    // The type-only imports of the protocol are gone; the four files from outside import nothing.
    for (const f of files)
      expect(fs.readFileSync(path.join(DIST, f), "utf8")).not.toMatch(
        /["']\.\.\/protocol\/(?!limits\.js|lines\.js|board-view\.js|text\.js)/,
      );
    for (const outside of ["limits.js", "lines.js", "board-view.js", "text.js"]) {
      const text = fs.readFileSync(path.join(DIST, "../protocol", outside), "utf8");
      expect([...text.matchAll(specifier)], `${outside} imports`).toEqual([]);
      expect(text).not.toMatch(/\brequire\(/);
    }
  });
});

describe("pi-roost/agent against a real daemon", () => {
  it("takes the first task as reply 1, sets the row, acks, truncates a long summary, and exits", async () => {
    const { c, id, pid, file } = await startAgent();
    expect(lines(file("handled.jsonl"))).toMatchObject([{ seq: 1, text: "task one", pid }]);
    let row = await until("the row set by the report", async () => {
      const r = await rowOf(c, id);
      return r.summary === "did: task one" ? r : null;
    });
    expect(row).toMatchObject({
      kind: "protocol",
      state: "working",
      status: "busy",
      pending: 0,
      lastSeq: 1,
      connected: true,
      agent: { name: "sdk-test-agent", version: "2.0" },
    });
    expect(row.capabilities).toEqual(expect.arrayContaining(["report", "replies", "steer"]));
    expect(JSON.parse(fs.readFileSync(file("agent.json"), "utf8"))).toEqual({ lastSeq: 1 });

    // A summary over the limit is cut, not refused.
    await c.ok("reply", { id, text: "summary 600" });
    row = await until("the long summary", async () => {
      const r = await rowOf(c, id);
      return r.summary?.startsWith("sss") && r.pending === 0 ? r : null;
    });
    expect(row.summary).toHaveLength(500);
    expect(row.summary.endsWith("…")).toBe(true);
    expect(row.state).toBe("working");

    await c.ok("reply", { id, text: "exit 3" });
    row = await until("the job's exit", async () => {
      const r = await rowOf(c, id);
      return r.life === "exited" ? r : null;
    });
    expect(row).toMatchObject({ exitCode: 3, state: "done", summary: "exiting", pending: 0, lastSeq: 3 });
    expect(lines(file("handled.jsonl")).map((h) => h.seq)).toEqual([1, 2, 3]);
  });

  it("lives through a daemon restart (SIGKILL): reconnects, says hello, reports, takes the next reply once", async () => {
    const { id, pid, file } = await startAgent();
    await until("the first hello", () => lines(file("hellos.jsonl")).length === 1);
    await d!.restart("SIGKILL");
    const c = await d!.client();
    const row = await until("the row connected again", async () => {
      const r = await rowOf(c, id);
      return r.connected && r.summary === "did: task one" ? r : null;
    });
    expect(row.pid).toBe(pid);
    expect(row.life).toBe("running");
    await until("hello on the new connection", () => lines(file("hellos.jsonl")).length >= 2);
    expect((await c.ok("reply", { id, text: "after restart" })).seq).toBe(2);
    await until("reply 2 handled and acked", async () => {
      return lines(file("handled.jsonl")).length === 2 && (await rowOf(c, id)).pending === 0;
    });
    // The row's text is coalesced (at most every 2 s): it comes, a little later.
    await until("the row's text", async () => (await rowOf(c, id)).summary === "did: after restart");
    const handled = lines(file("handled.jsonl"));
    expect(handled.map((h) => h.seq)).toEqual([1, 2]);
    expect(new Set(handled.map((h) => h.pid))).toEqual(new Set([pid]));
  });

  it("killed -9 while a handler runs: started again (respawn), it gets that reply again", async () => {
    const { c, id, pid, file } = await startAgent();
    // The handler runs until the test opens its gate: the kill lands while it runs, for certain.
    await c.ok("reply", { id, text: "gate open" });
    await until("the handler under way", () => lines(file("started.jsonl")).length === 2);
    expect(lines(file("handled.jsonl")).map((h) => h.seq)).toEqual([1]);
    process.kill(pid, "SIGKILL");
    await until("the job ended", async () => (await rowOf(c, id)).life === "exited");
    expect((await rowOf(c, id)).pending).toBe(1);
    const { job } = await c.ok("respawn", { id });
    expect(job.pid).not.toBe(pid);
    await until("reply 2 under way in the new process", () =>
      lines(file("started.jsonl")).some((s) => s.seq === 2 && s.pid === job.pid),
    );
    fs.writeFileSync(file("open"), "");
    await until("reply 2 handled by the new process and acked", async () => {
      return lines(file("handled.jsonl")).length === 2 && (await rowOf(c, id)).pending === 0;
    });
    const handled = lines(file("handled.jsonl"));
    expect(handled.map((h) => [h.seq, h.pid])).toEqual([
      [1, pid],
      [2, job.pid],
    ]);
    expect(lines(file("started.jsonl")).map((s) => [s.seq, s.pid])).toEqual([
      [1, pid],
      [2, pid],
      [2, job.pid],
    ]);
  });

  it("a reply finished but not acked (a crash between agent.json and the ack) is skipped and only acked", async () => {
    const { c, id, pid, file } = await startAgent();
    await c.ok("reply", { id, text: "lose-ack" });
    const row = await until("the job ended", async () => {
      const r = await rowOf(c, id);
      return r.life === "exited" ? r : null;
    });
    expect(row.exitCode).toBe(7);
    expect(row.pending).toBe(1);
    expect(JSON.parse(fs.readFileSync(file("agent.json"), "utf8"))).toEqual({ lastSeq: 2 });
    const { job } = await c.ok("respawn", { id });
    await until("reply 2 acked by the new process", async () => (await rowOf(c, id)).pending === 0);
    await c.ok("reply", { id, text: "after" });
    await until("reply 3 handled", () => lines(file("handled.jsonl")).length === 3);
    expect(lines(file("handled.jsonl")).map((h) => [h.seq, h.pid])).toEqual([
      [1, pid],
      [2, pid],
      [3, job.pid],
    ]);
    expect(lines(file("started.jsonl")).map((s) => s.seq)).toEqual([1, 2, 3]);
  });

  it("replies sent faster than the handler runs arrive one at a time, in order", async () => {
    const { c, id, file } = await startAgent({ AGENT_HANDLE_MS: "150" });
    const texts = ["r1", "r2", "r3", "r4", "r5"];
    for (const text of texts) await c.ok("reply", { id, text, mode: text === "r3" ? "steer" : "followUp" });
    await until(
      "all handled and acked",
      async () => {
        return lines(file("handled.jsonl")).length === 6 && (await rowOf(c, id)).pending === 0;
      },
      15000,
    );
    const started = lines(file("started.jsonl"));
    const handled = lines(file("handled.jsonl"));
    expect(handled.map((h) => h.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(handled.slice(1).map((h) => h.text)).toEqual(texts);
    expect(started.map((s) => s.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(started.some((s) => s.overlap)).toBe(false);
    expect(started.map((s) => s.mode)).toEqual([
      null,
      "followUp",
      "followUp",
      "steer",
      "followUp",
      "followUp",
    ]);
    // Each started after the one before it had finished.
    for (let i = 1; i < started.length; i++) expect(started[i].at).toBeGreaterThanOrEqual(handled[i - 1].at);
  });
});

describe("the example agent (sdk/ts/examples/example-agent.ts)", () => {
  it("runs shell steps, asks before overwriting a file, takes the answer, and is done", async () => {
    d = await startDaemon({
      config: {
        agentProfiles: {
          shell: {
            command: [process.execPath, path.join(ROOT, "dist/sdk/ts/examples/example-agent.js")],
            task: "type",
            protocol: true,
          },
        },
      },
    });
    const cwd = fs.mkdtempSync(path.join(d.home, "work-"));
    const c = await d.client();
    const task = "run: echo one > out.txt; echo two > out.txt; count lines in out.txt";
    const { job } = await c.ok("dispatch", { profile: "shell", task, cwd });
    const asked = await until("the question", async () => {
      const r = await rowOf(c, job.id);
      return r.state === "blocked" && r.pending === 0 ? r : null; // the ack follows the report
    });
    expect(asked).toMatchObject({
      waitingFor: "question",
      question: "Run `echo two > out.txt`?",
      choices: ["yes", "no"],
      pending: 0,
    });
    expect(fs.readFileSync(path.join(cwd, "out.txt"), "utf8")).toBe("one\n");
    await c.ok("reply", { id: job.id, text: "yes" });
    const done = await until("done", async () => {
      const r = await rowOf(c, job.id);
      return r.state === "done" ? r : null;
    });
    expect(done.summary).toContain("ran 3 steps");
    expect(done.summary).toContain("wc -l");
    expect(fs.readFileSync(path.join(cwd, "out.txt"), "utf8")).toBe("two\n");
    // A steer "stop" ends a task under way early.
    await c.ok("reply", { id: job.id, text: "run: sleep 20; echo never > never.txt" });
    await until("working on it", async () => (await rowOf(c, job.id)).summary?.includes("sleep 20"));
    // The step runs in a process group of its own, under the agent.
    const step = await until("the step's process", () => stepProcess(job.pid, "sleep 20"));
    await c.ok("reply", { id: job.id, text: "stop", mode: "steer" });
    const stopped = await until("stopped", async () => {
      const r = await rowOf(c, job.id);
      return r.state === "done" && r.pending === 0 ? r : null;
    });
    // The sleep did not finish: no step ran, of two (the Python example says the same).
    expect(stopped.summary).toBe("stopped after 0 of 2 steps");
    await untilGone(step); // the stop killed it
    expect(fs.existsSync(path.join(cwd, "never.txt"))).toBe(false);
  });
});

describe("pi-roost/agent: a handler that throws, and close", () => {
  it("a handler that throws counts as handled: recorded, acked, and the next reply comes", async () => {
    const { c, id, file } = await startAgent();
    await c.ok("reply", { id, text: "throw" });
    await c.ok("reply", { id, text: "after" });
    await until("reply 3 handled and acked", async () => {
      return lines(file("handled.jsonl")).length === 2 && (await rowOf(c, id)).pending === 0;
    });
    expect(lines(file("started.jsonl")).map((s) => s.seq)).toEqual([1, 2, 3]);
    expect(lines(file("handled.jsonl")).map((s) => s.seq)).toEqual([1, 3]);
    expect(JSON.parse(fs.readFileSync(file("agent.json"), "utf8"))).toEqual({ lastSeq: 3 });
  });

  it("close acks a running handler's reply only if it finishes within the timeout", async () => {
    const { c, id, file } = await startAgent();
    await c.ok("reply", { id, text: "close-while 100 3000" });
    await until("exited", async () => (await rowOf(c, id)).life === "exited");
    expect(await rowOf(c, id)).toMatchObject({ pending: 0, exitCode: 0 });
    expect(JSON.parse(fs.readFileSync(file("agent.json"), "utf8"))).toEqual({ lastSeq: 2 });

    await c.ok("respawn", { id });
    await until("reply 2 skipped and acked", async () => (await rowOf(c, id)).connected);
    await c.ok("reply", { id, text: "close-while 3000 100" });
    await until("exited again", async () => (await rowOf(c, id)).life === "exited");
    expect(await rowOf(c, id)).toMatchObject({ pending: 1, lastSeq: 3 });
    expect(JSON.parse(fs.readFileSync(file("agent.json"), "utf8"))).toEqual({ lastSeq: 2 });
    // Reply 3's handler had not finished when close returned: not recorded, not acked.
    expect(lines(file("handled.jsonl")).map((s) => s.seq)).toEqual([1, 2]);
  });
});
