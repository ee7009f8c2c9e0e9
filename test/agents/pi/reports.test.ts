/**
 * pi as a protocol agent (docs/pi.md), its row: the real pi 0.74.2 in a real pty, dispatched by a
 * real daemon with the built-in `pi` profile and driven by the scripted model. A task turns the row
 * working with the tool under way, then done once pi settles; the row carries pi's model, its
 * context window's use and the usage summed over the job; a model's error fails it. `npm run build`
 * first (the profile loads the built extension).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pushedRows } from "../../helpers/jobs.js";
import { PI_WAIT, piWorldPerTest, untilDone, untilRequests } from "../../helpers/pi.js";

const world = piWorldPerTest();

describe("pi's row", { timeout: 4 * PI_WAIT }, () => {
  it("a task turns it working with the tool shown, then done; model, context and usage on it", async () => {
    const w = await world();
    const sub = await w.d.client(); // the rows pushed for pi's job (see pushedRows)
    await sub.ok("subscribe", {});
    // The tool runs until the test has seen it on the row (the row's text is sent every 2 s at most).
    const command = "while [ ! -e go ]; do sleep 0.05; done; echo 3 files";
    w.model.script(
      "t1",
      { text: "Let me count.", tools: [{ name: "bash", args: { command } }] },
      { text: "There are 3 files.", usage: { prompt: 2000, completion: 50 } },
    );
    const id = await w.dispatch("[t1] count the files");
    const working = await w.until(id, "the tool on the row", (r) => r.tool === "bash");
    expect(working).toMatchObject({ state: "working", status: "busy", summary: `bash: ${command}` });
    fs.writeFileSync(path.join(w.work, "go"), "");
    const done = await untilDone(w, id);

    expect(done).toMatchObject({
      kind: "protocol",
      state: "done",
      status: "idle",
      summary: "There are 3 files.",
      tool: null,
      error: null,
      model: "scripted/m1",
      agent: { name: "pi" },
      pending: 0,
      lastSeq: 1,
      agentItems: true,
    });
    expect(done.capabilities).toEqual(
      expect.arrayContaining([
        "report",
        "replies",
        "steer",
        "usage",
        "context",
        "model-switch",
        "peers",
        "item-batches",
        "agent-items",
      ]),
    );
    // The context is the last answer's prompt and completion, of the model's 100k window.
    expect(done.context).toMatchObject({ tokens: 2050, window: 100000 });
    expect(done.context.percent).toBeCloseTo(2.05, 10);
    // Two answers: 1000 + 2000 prompt tokens at $3/M, 100 + 50 completion tokens at $15/M.
    expect(done.usage).toMatchObject({ messages: 2, input: 3000, output: 150, totalTokens: 3150 });
    expect(done.usage.cost.total).toBeCloseTo(0.009 + 0.00225, 10);

    // Done once pi settled, never on the way (not at pi's start, not between its turns). Before
    // its first report the row is read from pi's screen, as the protocol says (on a loaded machine
    // pi's drawn prompt can read as "your turn" for a moment): pi's own reports are what is held.
    const pushed = await pushedRows(sub, done, PI_WAIT);
    const seen = pushed.filter((r) => r.kind === "protocol");
    const firstDone = seen.findIndex((r) => r.state === "done");
    expect(firstDone).toBeGreaterThan(0);
    const line = (r: any) => `${r.kind} ${r.state} ${r.status} ${r.tool ?? ""} ${r.summary ?? ""}`;
    // Should it fail, every row pushed says where the early done came from.
    const story = `rows pushed:\n${pushed.map(line).join("\n")}`;
    const after = seen.slice(firstDone).map(line);
    expect(
      after.filter((l) => !l.startsWith("protocol done ")),
      story,
    ).toEqual([]);
    expect(seen.slice(0, firstDone).some((r) => r.tool === "bash")).toBe(true);
    // pi asked its model twice: the task, then the tool's result.
    const reqs = w.model.requestsFor("t1");
    expect(reqs).toHaveLength(2);
    expect(reqs[1]!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    // The task reached pi once, as its user's message.
    expect(reqs[1]!.messages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("a model's error fails it, with the error; a reply then starts pi again", async () => {
    const w = await world();
    w.model.script("t2", { error: "the model refuses: bad request", status: 400 });
    const id = await w.dispatch("[t2] break");
    const failed = await w.until(id, "failed", (r) => r.state === "failed");
    expect(failed).toMatchObject({ status: "idle", pending: 0 });
    expect(failed.error).toMatch(/the model refuses: bad request/);

    w.model.script("t2", { text: "Better now." });
    await w.c.ok("reply", { id, text: "try again" });
    const done = await w.until(id, "done again", (r) => r.state === "done" && r.summary === "Better now.");
    expect(done.error).toBeNull();
    await untilRequests(w, "t2", 2);
  });

  it("a new session in pi (/new) goes on speaking for its job", async () => {
    const w = await world();
    w.model.script("n1", { text: "Hi." });
    const id = await w.dispatch("[n1] hello");
    await w.until(id, "done", (r) => r.state === "done" && r.summary === "Hi.");

    // pi loads its extensions again for the new session, the job's identity no longer in its
    // environment: the new instance is still the job's, ready, not a foreground session.
    await w.c.ok("input", { id, data: "/new" });
    await w.c.ok("input", { id, data: "\r" });
    await w.until(id, "the new session ready", (r) => r.summary === "ready for a task" && r.connected);
    w.model.script("n2", { text: "Hello again." });
    await w.c.ok("reply", { id, text: "[n2] again" });
    const again = await w.until(id, "done again", (r) => r.summary === "Hello again." && r.pending === 0);
    expect(again).toMatchObject({ state: "done", lastSeq: 2 });
    expect((await w.c.ok("list")).rows.map((r: any) => [r.id, r.kind])).toEqual([[id, "protocol"]]);
    // The new session began with the reply alone.
    expect(w.model.requestsFor("n2")[0]!.messages.filter((m) => m.role === "user")).toHaveLength(1);
  });
});
