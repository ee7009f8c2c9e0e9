/**
 * Codex over ACP (the `codex-acp` profile: codex-acp 0.16.0) inside roost, against the scripted
 * model's OpenAI Responses wire: the core loop (real-acp-rules.ts), what its row says of the model
 * and the context, and a login with the key a user of Codex's own provider has.
 */
import { describe, expect, it } from "vitest";
import { REAL_WAIT, realAcpWorldPerFile, untilSettled } from "../../helpers/real-acp.js";
import { realAcpRules } from "../../helpers/real-acp-rules.js";
import { CODEX_MODEL } from "../../helpers/real-agents.js";

const world = realAcpWorldPerFile("codex-acp", {
  // Codex's built-in OpenAI provider and OPENAI_API_KEY, as most of its users run it.
  variants: { "codex-openai": { provider: "openai" } },
});

describe("codex-acp", { timeout: 4 * REAL_WAIT }, () => {
  realAcpRules(world, {
    // A command outside the sandbox, so that Codex asks (as it does for one that needs more).
    shell: (command) => ({
      name: "exec_command",
      args: { cmd: command, sandbox_permissions: "require_escalated", justification: `run ${command}` },
    }),
    roostTool: (name, args) => ({ name, namespace: "mcp__roost", args }),
    shellChoices: (command) => [
      "Yes, proceed",
      `Yes, and don't ask again for commands that start with \`${command.split(" | ")[0]}\``,
      "No, and tell Codex what to do differently",
    ],
    mcpChoices: ["Allow", "Allow for this session", "Allow and don't ask again", "Cancel"],
    mcpAllow: "Allow",
    allow: "Yes, proceed",
    allowNumber: 1,
  });

  it("the row says the model and the context the turn used", async () => {
    const w = world();
    w.model.script("usage", { text: "Counted.", usage: { prompt: 5000, completion: 300 } });
    const { id } = await w.dispatch("[usage] count");
    const done = await untilSettled(w, id);
    expect(done).toMatchObject({
      state: "done",
      summary: "Counted.",
      model: CODEX_MODEL,
      context: { tokens: 5300, window: expect.any(Number) },
    });
  });

  it("logs in with OPENAI_API_KEY: a session with Codex's own provider answers the task", async () => {
    const w = world();
    w.model.script("login", { text: "Logged in." });
    const { id } = await w.dispatch("[login] hello", { profile: "codex-openai" });
    // Without a login codex-acp refuses the session ("Authentication required").
    const ended = await w.until(id, "answered or failed", (r) => r.state === "done" || r.state === "failed");
    expect(ended).toMatchObject({ state: "done", summary: "Logged in.", error: null });
  });
});
