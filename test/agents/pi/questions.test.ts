/**
 * A pi job's questions (docs/pi.md, "Questions" and "Approvals"): the model's `roost_ask` turns the
 * row blocked with the question and its choices, and the reply that answers it is the tool's result,
 * once (never also a message to pi); pi's own terminal can answer it too. A profile's `approve`
 * holds those tools and asks "Run `…`?" (yes / no / always) through the row. The real pi 0.74.2,
 * the scripted model; `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, until } from "../../helpers/daemon.js";
import { pushedRows } from "../../helpers/jobs.js";
import { PI_WAIT, piWorldPerTest, untilDone } from "../../helpers/pi.js";
import { attachScreen } from "../../helpers/screen.js";
import { type ModelRequest, textOf } from "../../helpers/scripted-model.js";

const EXTENSION = path.join(ROOT, "dist/sdk/ts/pi/index.js");
const world = piWorldPerTest({
  config: {
    agentProfiles: {
      careful: { command: ["pi", "-e", EXTENSION], task: "type", protocol: true, approve: ["bash"] },
    },
  },
});

/** The text of a request's last tool result. */
const lastToolResult = (req: ModelRequest) =>
  textOf(req.messages.filter((m) => m.role === "tool").at(-1)?.content);
const userTexts = (req: ModelRequest) =>
  req.messages.filter((m) => m.role === "user").map((m) => textOf(m.content));

describe("pi's questions", { timeout: 4 * PI_WAIT }, () => {
  it("roost_ask blocks the row with the question and choices; the reply answers it once; pi's terminal can answer too", async () => {
    const w = await world();
    const ask = (question: string, choices: string[]) => ({
      tools: [{ name: "roost_ask", args: { question, choices } }],
    });
    w.model.script(
      "q1",
      ask("Deploy to staging or prod?", ["staging", "prod"]),
      (req) => ({ text: `Heard: ${lastToolResult(req)}`, ...ask("Which region?", ["eu", "us"]) }),
      (req) => ({ text: `Then: ${lastToolResult(req)}` }),
    );
    const id = await w.dispatch("[q1] deploy");
    const blocked = await w.until(id, "blocked on the question", (r) => r.state === "blocked");
    expect(blocked).toMatchObject({
      status: "waiting",
      waitingFor: "question",
      question: "Deploy to staging or prod?",
      choices: ["staging", "prod"],
      pending: 0,
    });

    await w.c.ok("reply", { id, text: "staging" });
    // The second question, asked once the first was answered: answered in pi's own terminal.
    const second = await w.until(id, "the second question", (r) => r.question === "Which region?");
    expect(second).toMatchObject({ state: "blocked", choices: ["eu", "us"], pending: 0, lastSeq: 2 });
    const screen = await attachScreen(w.c, id);
    await until(
      "pi's dialog on its screen",
      async () => (await screen.catchUp()).text().includes("Which region?"),
      PI_WAIT,
    );
    await w.c.ok("input", { id, data: "\x1b[B" }); // down to "us"
    await w.c.ok("input", { id, data: "\r" });

    const done = await untilDone(w, id);
    expect(done).toMatchObject({ summary: "Then: The user answered: us", question: null, choices: [] });
    const reqs = w.model.requestsFor("q1");
    expect(reqs).toHaveLength(3);
    expect(lastToolResult(reqs[1]!)).toBe("The user answered: staging");
    // The answer was the tool's result alone: it never reached pi as a message of the user's.
    expect(userTexts(reqs[2]!)).toEqual(["[q1] deploy"]);
  });

  it("a question stays on the row while a tool called beside it runs and ends", async () => {
    const w = await world();
    w.model.script(
      "q2",
      {
        tools: [
          { name: "roost_ask", args: { question: "Go on?", choices: ["yes", "no"] } },
          { name: "bash", args: { command: "echo beside > beside.txt" } },
        ],
      },
      (req) => ({ text: `Heard: ${textOf(req.messages.find((m) => m.role === "tool")?.content)}` }),
    );
    const sub = await w.d.client();
    await sub.ok("subscribe", {});
    const id = await w.dispatch("[q2] both at once");
    await w.until(id, "blocked", (r) => r.state === "blocked" && r.question === "Go on?");
    await until("the other tool done", () => fs.existsSync(path.join(w.work, "beside.txt")), PI_WAIT);
    // Its result is in pi's hands (pi reports it once both are done): give pi a moment to say so.
    await w.until(id, "the other tool ended", (r) => r.state === "blocked" && r.tool === null);
    await w.c.ok("reply", { id, text: "yes" });
    const done = await untilDone(w, id);
    expect(done.summary).toBe("Heard: The user answered: yes");
    // From the question's first showing to the answer, every row said blocked.
    const rows = await pushedRows(sub, done, PI_WAIT);
    const first = rows.findIndex((r) => r.state === "blocked");
    const answered = rows.findIndex((r, i) => i > first && r.state !== "blocked");
    expect(first).toBeGreaterThanOrEqual(0);
    expect(answered).toBeGreaterThan(first);
    expect(rows.slice(first, answered).every((r) => r.question === "Go on?")).toBe(true);
    expect(rows.slice(answered).some((r) => r.state === "blocked")).toBe(false);
  });

  it("approve: a held bash call asks through the row; yes runs it, no blocks it and the model is told, always stops asking", async () => {
    const w = await world();
    const bash = (command: string) => ({ tools: [{ name: "bash", args: { command } }] });
    w.model.script(
      "a1",
      bash("touch yes.txt"),
      bash("touch no.txt"),
      (req) => ({ text: `Noted: ${lastToolResult(req)}`, ...bash("touch always.txt") }),
      bash("touch unasked.txt"),
      { text: "All made." },
    );
    const sub = await w.d.client();
    await sub.ok("subscribe", {});
    const { job } = await w.c.ok("dispatch", { profile: "careful", task: "[a1] make files", cwd: w.work });
    const id = job.id as string;

    const first = await w.until(id, "asked about the first call", (r) => r.state === "blocked");
    expect(first).toMatchObject({
      waitingFor: "question",
      question: "Run `touch yes.txt`?",
      choices: ["yes", "no", "always"],
    });
    expect(fs.existsSync(path.join(w.work, "yes.txt"))).toBe(false); // held until answered
    await w.c.ok("reply", { id, text: "yes" });
    await until("yes.txt made", () => fs.existsSync(path.join(w.work, "yes.txt")), PI_WAIT);

    await w.until(id, "asked about the second call", (r) => r.question === "Run `touch no.txt`?");
    await w.c.ok("reply", { id, text: "no" });
    await w.until(id, "asked about the third call", (r) => r.question === "Run `touch always.txt`?");
    expect(w.model.requestsFor("a1")[2]!.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(lastToolResult(w.model.requestsFor("a1")[2]!)).toMatch(/The user said no: the call did not run\./);
    expect(fs.existsSync(path.join(w.work, "no.txt"))).toBe(false);
    await w.c.ok("reply", { id, text: "always" });

    const done = await untilDone(w, id);
    expect(done.summary).toBe("All made.");
    expect(fs.existsSync(path.join(w.work, "always.txt"))).toBe(true);
    expect(fs.existsSync(path.join(w.work, "unasked.txt"))).toBe(true);
    // Three questions, one per call until "always": bash was not asked about again.
    const questions = new Set(
      sub.events
        .filter((e) => e.event === "row" && e.row.id === id && e.row.question)
        .map((e) => e.row.question),
    );
    expect([...questions]).toEqual([
      "Run `touch yes.txt`?",
      "Run `touch no.txt`?",
      "Run `touch always.txt`?",
    ]);
    // The answers were the approvals' alone: none reached the model as a message.
    expect(userTexts(w.model.requestsFor("a1").at(-1)!)).toEqual(["[a1] make files"]);
  });
});
