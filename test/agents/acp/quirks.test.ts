/**
 * Each ACP agent's ways, as roost reads them (docs/agents.md, "ACP agents"): models listed as
 * `models` in the session's answer (Gemini CLI, claude-agent-acp) on the row and switched by
 * `/model`; the tokens a turn took, in ACP's `usage` (claude-agent-acp) or in `_meta.quota` (Gemini
 * CLI), summed on the row; the start text gone once the first turn starts; Gemini CLI's trust of
 * the job's folder. The agent is the scripted ACP agent in each mode. `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ACP_WAIT, acpProfile, acpWorldPerFile, untilSettled } from "../../helpers/acp.js";

const PROFILES = {
  listed: acpProfile({ env: { ACP_MODELS: "1" } }),
  untrusted: acpProfile({ env: { GEMINI_CLI_TRUST_WORKSPACE: "false" } }),
  queueing: acpProfile({ env: { ACP_QUEUEING: "1" } }),
};

describe("an ACP agent's ways", { timeout: 4 * ACP_WAIT }, () => {
  const world = acpWorldPerFile(PROFILES);

  it("models listed in the session's answer: the current one on the row, /model switches with session/set_model", async () => {
    const w = world();
    const { id, work } = await w.dispatch("say hi", { profile: "listed" });
    expect(await untilSettled(w, id)).toMatchObject({ state: "done", summary: "hi", model: "Auto" });
    await w.c.ok("reply", { id, text: "/model fast-1" });
    await w.until(id, "the model switched", (r) => r.model === "Fast One" && r.pending === 0);
    await w.c.ok("reply", { id, text: "/model gpt-9" });
    await w.until(id, "the refusal", (r) => r.summary === "/model: the agent offers auto, fast-1");
    const log = w.log(work);
    expect(log.filter((e) => e.setModel).map((e) => e.setModel)).toEqual(["fast-1"]);
    expect(log.filter((e) => "prompt" in e && !("stop" in e)).map((e) => e.prompt)).toEqual(["say hi"]);
  });

  it("a turn's tokens, in Gemini CLI's _meta.quota or ACP's usage, are summed in the row's usage", async () => {
    const w = world();
    const { id } = await w.dispatch("say counted; quota 1200 80");
    expect(await untilSettled(w, id)).toMatchObject({
      summary: "counted",
      usage: { turns: 1, input: 1200, output: 80, totalTokens: 1280 },
    });
    await w.c.ok("reply", { id, text: "say again; tokens 300 20" });
    expect(
      await w.until(id, "the second turn", (r) => r.summary === "again" && r.state === "done"),
    ).toMatchObject({
      usage: { turns: 2, input: 1500, output: 100, totalTokens: 1600 },
    });
  });

  it("the start text is gone once the first turn starts", async () => {
    const w = world();
    const { id, work } = await w.dispatch("gate go; say through");
    await w.until(id, "prompted", () => w.log(work).some((e) => e.prompt));
    const working = await w.until(id, "the turn on the row", (r) => r.status === "busy");
    expect(working).toMatchObject({ state: "working", summary: "working" });
    fs.writeFileSync(path.join(work, "go"), "");
    expect(await untilSettled(w, id)).toMatchObject({ summary: "through" });
  });

  it("a steer of an agent that queues prompts (claude-agent-acp) is handed the turn, no cancel: the row is done only with the steered answer", async () => {
    const w = world();
    const { id, work } = await w.dispatch("tool Build everything; hold", { profile: "queueing" });
    await w.until(id, "the tool running", (r) => r.tool === "Build everything");
    await w.c.ok("reply", { id, text: "say changed course", mode: "steer" });
    const done = await w.until(id, "the steered answer", (r) => r.state === "done" && r.pending === 0);
    expect(done).toMatchObject({ summary: "changed course", lastSeq: 2 });
    const log = w.log(work);
    // A cancel would have left the turn's end behind: the steer answered at once, run unseen.
    expect(log.filter((e) => e.cancel || e.early || e.ranLate)).toEqual([]);
    expect(
      log.filter((e) => e.queued || e.handedOver || e.stop).map((e) => e.queued ?? e.stop ?? "handed over"),
    ).toEqual(["say changed course", "handed over", "end_turn", "end_turn"]);
  });

  it("a call announced in its permission request alone (Gemini CLI's way) is on the row while it runs, once allowed", async () => {
    const w = world();
    const { id, work } = await w.dispatch("ask-only Run make; gate go; tool-done; say made");
    await w.until(id, "blocked", (r) => r.state === "blocked");
    await w.c.ok("reply", { id, text: "Allow once" });
    expect(
      await w.until(id, "the call running", (r) => r.state === "working" && r.tool !== null),
    ).toMatchObject({
      tool: "Run make",
      summary: "Run make",
      question: null,
    });
    fs.writeFileSync(path.join(work, "go"), "");
    expect(await untilSettled(w, id)).toMatchObject({ state: "done", summary: "made", tool: null });
  });

  it("Gemini CLI's trust: the job's folder trusted unless the profile says otherwise", async () => {
    const w = world();
    const trusted = await w.dispatch("say hi");
    const untrusted = await w.dispatch("say hi", { profile: "untrusted" });
    await untilSettled(w, trusted.id);
    await untilSettled(w, untrusted.id);
    expect(w.log(trusted.work).find((e) => e.sessionNew).trust).toBe("true");
    expect(w.log(untrusted.work).find((e) => e.sessionNew).trust).toBe("false");
  });
});
