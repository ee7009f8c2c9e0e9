/**
 * Claude Code over ACP (the `claude-acp` profile: claude-agent-acp 0.23.1 on Claude Code 2.1.83)
 * inside roost, against the scripted model's Anthropic Messages wire: the core loop
 * (real-acp-rules.ts), and what its row says of the model, the context and the cost.
 */
import { describe, expect, it } from "vitest";
import { REAL_WAIT, realAcpWorldPerFile, untilSettled } from "../../helpers/real-acp.js";
import { realAcpRules } from "../../helpers/real-acp-rules.js";

const world = realAcpWorldPerFile("claude-acp");

describe("claude-acp", { timeout: 4 * REAL_WAIT }, () => {
  realAcpRules(world, {
    shell: (command) => ({ name: "Bash", args: { command, description: `Run ${command}` } }),
    roostTool: (name, args) => ({ name: `mcp__roost__${name}`, args }),
    shellChoices: () => ["Always Allow", "Allow", "Reject"],
    mcpChoices: ["Always Allow", "Allow", "Reject"],
    mcpAllow: "Allow",
    allow: "Allow",
    allowNumber: 2,
  });

  it("the row says the model, the context the turn used and its cost", async () => {
    const w = world();
    w.model.script("usage", { text: "Counted.", usage: { prompt: 5000, completion: 300 } });
    const { id } = await w.dispatch("[usage] count");
    const done = await untilSettled(w, id);
    expect(done).toMatchObject({ state: "done", summary: "Counted.", model: expect.any(String) });
    expect(done.context).toMatchObject({ window: 200000 });
    expect(done.context.tokens).toBeGreaterThanOrEqual(5000);
    // The scripted model's 5000 in and 300 out at Claude's default model's price.
    expect(done.usage.cost).toMatchObject({ currency: "USD" });
    expect(done.usage.cost.total).toBeGreaterThan(0);
  });
});
