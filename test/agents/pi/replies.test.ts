/**
 * Replies to a pi job (docs/pi.md, "Replies"): each becomes one of pi's own user messages with
 * pi's own delivery, and is acked only once pi has taken it. A steer given while a tool runs is in
 * the model's next call, right after the tool's result; a follow-up comes after the model's last
 * answer. `/model` and `/thinking` switch pi's model and thinking level. The real pi 0.74.2, the
 * scripted model; `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PI_WAIT, piWorldPerTest, untilDone } from "../../helpers/pi.js";
import { type ModelRequest, textOf } from "../../helpers/scripted-model.js";

const world = piWorldPerTest({ models: [{ id: "m1" }, { id: "m2", reasoning: true }] });

/** The roles and texts of a request's messages after the system prompt, as one line each. */
const transcript = (req: ModelRequest) =>
  req.messages
    .filter((m) => m.role !== "system")
    .map((m) => `${m.role}: ${m.role === "assistant" && m.tool_calls ? "(tool call)" : textOf(m.content)}`);

describe("replies to pi", { timeout: 4 * PI_WAIT }, () => {
  it("a steer during a long tool run is taken as pi's steer, a follow-up after its answer; each acked once taken", async () => {
    const w = await world();
    const command = "while [ ! -e go ]; do sleep 0.05; done; echo built";
    w.model.script(
      "s1",
      { text: "Building.", tools: [{ name: "bash", args: { command } }] },
      { text: "Built, and the docs are checked." },
      { text: "Summary: built." },
    );
    const id = await w.dispatch("[s1] build it");
    await w.until(id, "the tool running", (r) => r.tool === "bash");

    const steer = await w.c.ok("reply", { id, text: "also check the docs", mode: "steer" });
    const followUp = await w.c.ok("reply", { id, text: "then summarize", mode: "followUp" });
    expect([steer.seq, followUp.seq]).toEqual([2, 3]);
    // pi holds both while the tool runs: neither is taken, so neither is acked.
    const held = await w.until(id, "both delivered", (r) => r.lastSeq === 3);
    expect(held.pending).toBe(2);

    fs.writeFileSync(path.join(w.work, "go"), "");
    const done = await untilDone(w, id);
    expect(done).toMatchObject({ summary: "Summary: built.", lastSeq: 3, pending: 0 });

    const reqs = w.model.requestsFor("s1");
    expect(reqs).toHaveLength(3);
    // The steer joined the work under way: right after the tool's result, before the model's next call.
    expect(transcript(reqs[1]!)).toEqual([
      "user: [s1] build it",
      "assistant: (tool call)",
      "tool: built\n",
      "user: also check the docs",
    ]);
    // The follow-up came once pi would have stopped: after the model's answer.
    expect(transcript(reqs[2]!).slice(-2)).toEqual([
      "assistant: Built, and the docs are checked.",
      "user: then summarize",
    ]);
  });

  it("a reply to a pi that has settled starts it again; /model and /thinking switch pi's model and thinking", async () => {
    const w = await world();
    w.model.script("m", { text: "Hello." });
    const id = await w.dispatch("[m] say hello");
    const first = await untilDone(w, id);
    expect(first).toMatchObject({ model: "scripted/m1", thinking: "off" });

    await w.c.ok("reply", { id, text: "/model scripted/m2" });
    await w.until(id, "on m2", (r) => r.model === "scripted/m2" && r.pending === 0);
    await w.c.ok("reply", { id, text: "/thinking high" });
    await w.until(id, "thinking high", (r) => r.thinking === "high" && r.pending === 0);

    // A model pi does not know: said on the row, nothing switched, the reply taken.
    await w.c.ok("reply", { id, text: "/model scripted/nope" });
    const refused = await w.until(
      id,
      "the refusal",
      (r) => r.summary === '/model: pi has no model "scripted/nope"',
    );
    expect(refused).toMatchObject({ model: "scripted/m2", pending: 0 });
    await w.c.ok("reply", { id, text: "/model" });
    await w.until(id, "the model's refusal", (r) => r.summary === "/model: say which, as provider/id");
    await w.c.ok("reply", { id, text: "/thinking a lot" });
    await w.until(id, "the second refusal", (r) => /^\/thinking: say one of off, minimal/.test(r.summary));

    w.model.script("m", { text: "Hello from m2." });
    await w.c.ok("reply", { id, text: "again" });
    await w.until(id, "done on m2", (r) => r.state === "done" && r.summary === "Hello from m2.");
    const reqs = w.model.requestsFor("m");
    expect(reqs.map((r) => r.model)).toEqual(["m1", "m2"]);
    // The commands were roost's: none reached the model.
    expect(transcript(reqs[1]!).filter((l) => l.startsWith("user:"))).toEqual([
      "user: [m] say hello",
      "user: again",
    ]);
  });
});
