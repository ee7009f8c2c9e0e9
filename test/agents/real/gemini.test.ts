/**
 * Gemini CLI over ACP (the `gemini` profile: `gemini --acp`, 0.61.0) inside roost, against the
 * scripted model's Gemini wire: the core loop (real-acp-rules.ts), what its row says of the model
 * and the tokens, and roost's tools in a folder the user never trusted.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REAL_WAIT, realAcpWorldPerFile, untilSettled } from "../../helpers/real-acp.js";
import { realAcpRules, untilToolShown } from "../../helpers/real-acp-rules.js";

const world = realAcpWorldPerFile("gemini", {
  // No GEMINI_CLI_TRUST_WORKSPACE: the folder's trust is left to roost.
  variants: { "gemini-untrusted": { trust: false } },
});

describe("gemini", { timeout: 4 * REAL_WAIT }, () => {
  realAcpRules(world, {
    shell: (command) => ({ name: "run_shell_command", args: { command } }),
    roostTool: (name, args) => ({ name: `mcp_roost_${name}`, args }),
    shellChoices: () => ["Allow for this session", "Allow", "Reject"],
    mcpChoices: ["Allow all server tools for this session", "Allow tool for this session", "Allow", "Reject"],
    mcpAllow: "Allow",
    allow: "Allow",
    allowNumber: 2,
    announcesTools: false,
  });

  it("the row shows the command it allowed while it runs (announced only in the permission request)", async () => {
    const w = world();
    const command = "until [ -f go ]; do sleep 0.1; done; echo ran | tee ran.txt";
    w.model.script(
      "running",
      { text: "Running it.", tools: [{ name: "run_shell_command", args: { command } }] },
      { text: "Ran it." },
    );
    const { id, work } = await w.dispatch("[running] run the slow one");
    await w.until(id, "blocked", (r) => r.state === "blocked");
    await w.c.ok("reply", { id, text: "Allow" });
    await untilToolShown(w, id, "ran.txt");
    fs.writeFileSync(path.join(work, "go"), "");
    expect(await untilSettled(w, id)).toMatchObject({ state: "done", summary: "Ran it.", tool: null });
  });

  it("the row says the model and the tokens the turn used", async () => {
    const w = world();
    w.model.script("usage", { text: "Counted.", usage: { prompt: 5000, completion: 300 } });
    const { id } = await w.dispatch("[usage] count");
    // The model its session/new names as current; the tokens it gives in the prompt's `_meta.quota`.
    expect(await untilSettled(w, id)).toMatchObject({
      state: "done",
      summary: "Counted.",
      model: expect.any(String),
      usage: { turns: 1, input: 5000, output: 300 },
    });
  });

  it("roost's tools are offered in a folder the user never trusted", async () => {
    const w = world();
    w.model.script("trust", { text: "Looked." });
    const { id } = await w.dispatch("[trust] what tools do you have", { profile: "gemini-untrusted" });
    expect(await untilSettled(w, id)).toMatchObject({ state: "done", summary: "Looked." });
    expect(w.model.requestsFor("trust")[0]!.tools).toEqual(
      expect.arrayContaining(["mcp_roost_roost_tasks", "mcp_roost_roost_send"]),
    );
  });
});
