/**
 * ACP agents as roost jobs (docs/agents.md): a profile with `acp: true` runs roost's ACP bridge,
 * which drives the agent over ACP and speaks for the job. The agent here is a real ACP agent on the
 * official SDK, scripted by its prompts (test/fixtures/acp-agent.mjs), under a real daemon; what it
 * was asked is in its log. One daemon serves the file's tests but the one that restarts it. `npm run
 * build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ACP_WAIT, acpProfile, acpWorldPerFile, acpWorldPerTest, untilSettled } from "../../helpers/acp.js";
import { CLI, isAlive, until } from "../../helpers/daemon.js";
import { untilGone } from "../../helpers/jobs.js";

const PROFILES = {
  // A program that speaks no ACP: it says so on stderr and ends.
  mute: acpProfile({ command: ["/bin/sh", "-c", "echo 'no ACP here' >&2; exit 2"] }),
};

/** The prompts the agent was given, in order. */
const prompts = (log: any[]) => log.filter((e) => "prompt" in e && !("stop" in e)).map((e) => e.prompt);

describe("an ACP job", { timeout: 4 * ACP_WAIT }, () => {
  const world = acpWorldPerFile(PROFILES);
  /** A world of the test's own: for the test that restarts its daemon. */
  const ownWorld = acpWorldPerTest({ profiles: PROFILES });

  it("a task turns the row working with the tool shown, then done with the answer; a session in the job's directory with roost's tools", async () => {
    const w = world();
    const { id, work } = await w.dispatch(
      "plan look, fix; tool Run npm test; gate go; tool-done; usage 1500 200000 0.25; say All 12 tests pass.",
    );
    const working = await w.until(id, "the tool running", (r) => r.tool === "Run npm test");
    expect(working).toMatchObject({
      kind: "protocol",
      state: "working",
      status: "busy",
      summary: "Run npm test",
      model: "Model One",
      agent: { name: "acp-agent", version: "roost-acp/1" },
    });
    expect(working.capabilities).toEqual(expect.arrayContaining(["steer", "peers", "model-switch"]));

    fs.writeFileSync(path.join(work, "go"), "");
    const done = await untilSettled(w, id);
    expect(done).toMatchObject({
      state: "done",
      status: "idle",
      summary: "All 12 tests pass.",
      tool: null,
      error: null,
      context: { tokens: 1500, window: 200000, percent: 0.75 },
      usage: { cost: { total: 0.25, currency: "USD" } },
      lastSeq: 1,
      life: "running",
    });

    // The session is in the job's working directory, with `roost mcp` as its MCP server; the agent
    // has no job identity of its own (the bridge speaks for the job).
    const [init, created] = w.log(work);
    expect(init.initialize).toEqual({
      protocolVersion: 1,
      clientInfo: { name: "roost", version: "roost-acp/1" },
    });
    expect(created.sessionNew.cwd).toBe(work);
    expect(created.sessionNew.mcpServers).toEqual([
      {
        name: "roost",
        command: process.execPath,
        args: [CLI, "mcp"],
        env: [{ name: "ROOST_TOOLS_SOCKET", value: path.join(w.d.home, "jobs", id, "tools.sock") }],
      },
    ]);
    expect(created.env).toBeNull();
  });

  it("a plan's current step is the row's text while no tool runs", async () => {
    const w = world();
    const { id, work } = await w.dispatch(
      "plan read the code, fix the bug, run the tests; gate go; say fixed",
    );
    await w.until(
      id,
      "the plan's step",
      (r) => r.summary === "plan 1/3: read the code" && r.state === "working",
    );
    fs.writeFileSync(path.join(work, "go"), "");
    expect(await untilSettled(w, id)).toMatchObject({ state: "done", summary: "fixed" });
  });

  it("a permission request is a blocked row with the agent's options; a reply answers it once", async () => {
    const w = world();
    const { id, work } = await w.dispatch("ask Delete build/");
    const blocked = await w.until(id, "blocked", (r) => r.state === "blocked");
    expect(blocked).toMatchObject({
      status: "waiting",
      waitingFor: "question",
      question: "Allow: Delete build/?",
      choices: ["Allow once", "Always allow", "Reject"],
      pending: 0, // the task was taken: it is the prompt the agent is in
    });

    await w.c.ok("reply", { id, text: "always allow" }); // a choice, in any case
    expect(await untilSettled(w, id)).toMatchObject({
      state: "done",
      summary: "permission: allow_always",
      question: null,
      choices: [],
    });
    // Answered once: the next reply is a prompt of its own, not another answer.
    await w.c.ok("reply", { id, text: "Reject" });
    await w.until(id, "the next prompt answered", (r) => r.summary === "heard: Reject" && r.pending === 0);
    const log = w.log(work);
    expect(log.filter((e) => e.permission)).toEqual([
      expect.objectContaining({ permission: "Delete build/", outcome: "allow_always" }),
    ]);
    expect(prompts(log)).toEqual(["ask Delete build/", "Reject"]);
  });

  it("a reply that names no option rejects the request and reaches the agent as its next prompt", async () => {
    const w = world();
    const { id, work } = await w.dispatch("ask rm -rf /");
    await w.until(id, "blocked", (r) => r.state === "blocked");
    await w.c.ok("reply", { id, text: "no: clean with git clean -fdx instead" });
    await w.until(
      id,
      "the reply answered",
      (r) => r.summary === "heard: no: clean with git clean -fdx instead",
    );
    const log = w.log(work);
    expect(log.find((e) => e.permission)).toMatchObject({ outcome: "reject_once" });
    expect(prompts(log)).toEqual(["ask rm -rf /", "no: clean with git clean -fdx instead"]);
    expect((await untilSettled(w, id)).lastSeq).toBe(2);
  });

  it("a steer cancels the turn and is the next prompt; a follow-up waits for the turn's end", async () => {
    const w = world();
    const { id, work } = await w.dispatch("tool Build everything; hold");
    await w.until(id, "the tool running", (r) => r.tool === "Build everything");

    await w.c.ok("reply", { id, text: "say after that, the docs" });
    // A follow-up is not taken while the turn runs: the row counts it as pending.
    const held = await w.until(id, "the follow-up delivered", (r) => r.lastSeq === 2);
    expect(held).toMatchObject({ state: "working", pending: 1 });
    expect(prompts(w.log(work))).toEqual(["tool Build everything; hold"]);

    await w.c.ok("reply", { id, text: "say changed course", mode: "steer" });
    const done = await w.until(
      id,
      "both prompted",
      (r) => r.state === "done" && r.pending === 0 && r.summary === "after that, the docs",
    );
    expect(done.lastSeq).toBe(3);
    const log = w.log(work);
    // The turn was cancelled (ACP's session/cancel), then the steer prompted before the follow-up.
    expect(
      log.filter((e) => e.cancel || e.stop).map((e) => (e.cancel ? "cancel" : `${e.stop}: ${e.prompt}`)),
    ).toEqual([
      "cancel",
      "cancelled: tool Build everything; hold",
      "end_turn: say changed course",
      "end_turn: say after that, the docs",
    ]);
    expect(prompts(log)).toEqual([
      "tool Build everything; hold",
      "say changed course",
      "say after that, the docs",
    ]);
  });

  it("a job dispatched without a task is ready for one; a reply is its first prompt", async () => {
    const w = world();
    const { id, work } = await w.dispatch(undefined);
    expect(await untilSettled(w, id)).toMatchObject({
      state: "done",
      summary: "ready for a task",
      lastSeq: 0,
    });
    await w.c.ok("reply", { id, text: "say hello" });
    expect(await w.until(id, "answered", (r) => r.summary === "hello" && r.pending === 0)).toMatchObject({
      state: "done",
    });
    expect(prompts(w.log(work))).toEqual(["say hello"]);
  });

  it("/model switches the agent's model where it offers one; refused ones are said on the row", async () => {
    const w = world();
    const { id, work } = await w.dispatch("say hi");
    await untilSettled(w, id);
    await w.c.ok("reply", { id, text: "/model m2" });
    await w.until(id, "the model switched", (r) => r.model === "Model Two" && r.pending === 0);
    expect(w.log(work).filter((e) => e.setConfigOption)).toEqual([
      expect.objectContaining({ setConfigOption: { configId: "model", value: "m2" } }),
    ]);
    await w.c.ok("reply", { id, text: "/model gpt-9" });
    await w.until(id, "the refusal", (r) => r.summary === "/model: the agent offers m1, m2");
    await w.c.ok("reply", { id, text: "/mode plan" });
    await w.until(id, "the refusal", (r) => r.summary === "/mode: this agent offers no mode to choose");
    // None of them was a prompt.
    expect(prompts(w.log(work))).toEqual(["say hi"]);
  });

  it("a turn the agent refuses, or answers with an error, fails the row with why", async () => {
    const w = world();
    const { id } = await w.dispatch("say I cannot; refuse");
    expect(await untilSettled(w, id)).toMatchObject({
      state: "failed",
      summary: "I cannot",
      error: "the agent refused to go on with this prompt",
    });
    await w.c.ok("reply", { id, text: "fail the model is overloaded" });
    await w.until(id, "failed again", (r) => r.error === "Internal error: the model is overloaded");
    // The job goes on: the next prompt is answered.
    await w.c.ok("reply", { id, text: "say better" });
    expect(await w.until(id, "done", (r) => r.summary === "better" && r.state === "done")).toMatchObject({
      error: null,
      life: "running",
    });
  });

  it("the agent crashing ends the job with its reason", async () => {
    const w = world();
    const { id, work } = await w.dispatch("say bye; crash 3 out of cheese");
    const ended = await w.until(id, "ended", (r) => r.life === "exited");
    expect(ended).toMatchObject({
      state: "failed",
      status: "idle",
      error: "acp-agent exited with code 3: out of cheese",
      exitCode: 1,
    });
    // The agent's stderr went to the job's transcript too.
    const { pid } = w.log(work).find((e) => e.prompt);
    // Gone: a process that exited is alive to kill(0) until its parent has reaped it.
    await until("the agent reaped", () => !isAlive(pid));
    const transcript = path.join(w.d.home, "jobs", id, "transcript.log");
    await until(
      "the transcript",
      () => fs.existsSync(transcript) && fs.readFileSync(transcript, "utf8").includes("out of cheese"),
    );
  });

  it("a program that speaks no ACP ends the job with its own reason", async () => {
    const w = world();
    const { job } = await w.c.ok("dispatch", { profile: "mute", task: "hello", cwd: w.workDir("mute") });
    expect(await w.until(job.id, "ended", (r) => r.life === "exited")).toMatchObject({
      state: "failed",
      summary: "the agent ended before its session was made",
      error: "sh exited with code 2: no ACP here",
    });
  });

  it("/stop ends the bridge and its agent", async () => {
    const w = world();
    const { id, work } = await w.dispatch("tool Long; hold");
    await w.until(id, "the tool running", (r) => r.tool === "Long");
    const { pid } = w.log(work).find((e) => e.prompt);
    await w.c.ok("reply", { id, text: "/stop" });
    expect(await w.until(id, "stopped", (r) => r.life === "stopped")).toMatchObject({ status: "idle" });
    await untilGone(pid);
  });

  it("a daemon restart under an ACP job: the job runs on, its bridge reconnects, the turn's end reaches the row", async () => {
    const w = await ownWorld();
    const { id, work } = await w.dispatch("tool Long build; gate go; say built");
    await w.until(id, "the tool running", (r) => r.tool === "Long build");
    const { pid } = w.log(work).find((e) => e.prompt);

    await w.d.restart();
    const c = await w.d.client();
    fs.writeFileSync(path.join(work, "go"), "");
    const row = async () => (await c.ok("list", { id })).rows[0];
    await until(
      "the turn's end on the row",
      async () => {
        const r = await row();
        return r.state === "done" && r.summary === "built" && r.connected ? r : null;
      },
      ACP_WAIT,
    );
    // The same agent, its session kept: a reply is its next prompt.
    await c.ok("reply", { id, text: "say again" });
    await until("answered", async () => (await row()).summary === "again", ACP_WAIT);
    expect(isAlive(pid)).toBe(true);
    expect(prompts(w.log(work))).toEqual(["tool Long build; gate go; say built", "say again"]);
    expect(new Set(w.log(work).map((e) => e.pid))).toEqual(new Set([pid]));
  });
});
