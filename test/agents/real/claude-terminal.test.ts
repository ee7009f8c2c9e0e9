/**
 * The real Claude Code in a terminal job, as its users run it, against the scripted model: roost's
 * hooks for the job (its `--settings` file) make the row: the permission prompt `blocked` with
 * Claude Code's own question and its menu's options, a reply by name typed as the option's key, the
 * tool run, `your turn` with the last message, usage and cost from its transcript; a follow-up; a
 * respawn that resumes its session (`--resume`). `npm run build` first.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeHome } from "../../helpers/claude-home.js";
import { startDaemon, type TestDaemon } from "../../helpers/daemon.js";
import { untilRow } from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";
import { claudeEnv, realAgent } from "../../helpers/real-agents.js";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.js";

let model: ScriptedModel;
let d: TestDaemon;
let c: RawClient;
let base: string;
let work: string;

beforeAll(async () => {
  model = await startScriptedModel();
  base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-claude-term-"));
  work = path.join(base, "work");
  fs.mkdirSync(work);
  const home = path.join(base, "home");
  claudeHome(home, [work]);
  d = await startDaemon({
    config: {
      agentProfiles: {
        // The built-in profile, its program the pinned Claude Code: roost's hooks by its name.
        claude: {
          command: [realAgent("claude")],
          task: "argv",
          blockedPattern: ["Do you want to", "❯ 1\\. Yes"],
          messages: true,
          env: claudeEnv(model.origin, home),
        },
      },
    },
  });
  c = await d.client();
}, 60_000);
afterAll(async () => {
  await d?.cleanup();
  await model?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe("Claude Code in a terminal, its row from its hooks", () => {
  it("asks permission with its own menu, takes a reply by name, ends its turn with its answer and its cost; resumes its session at a respawn", async () => {
    model.script(
      "ct",
      {
        text: "I'll write the file.",
        tools: [{ name: "Bash", args: { command: "echo hooked > made.txt", description: "Write a file" } }],
      },
      { text: "All done: wrote made.txt" },
      { text: "You are welcome." },
      { text: "Still here." },
    );
    const { job } = await c.ok("dispatch", { profile: "claude", task: "[ct] write made.txt", cwd: work });
    const id = job.id;
    const asked = await untilRow(
      c,
      id,
      "blocked, with its menu",
      (r) => r.state === "blocked" && r.choices,
      60_000,
    );
    expect(asked.question).toBe("Claude needs your permission to use Bash: echo hooked > made.txt");
    expect(asked.tool).toBe("Bash");
    expect(asked.choices[0]).toBe("Yes");
    expect(asked.choices.at(-1)).toBe("No");
    expect(asked.conversation).toBe("new");

    await c.ok("reply", { id, text: "Yes" });
    const done = await untilRow(c, id, "its answer", (r) => r.summary === "All done: wrote made.txt", 60_000);
    expect(fs.readFileSync(path.join(work, "made.txt"), "utf8")).toBe("hooked\n");
    expect(done).toMatchObject({
      view: "your turn",
      question: null,
      tool: null,
      model: expect.stringMatching(/claude/),
    });
    // The scripted model's usage (1000 in, 100 out a request), priced as the model Claude Code named.
    expect(done.usage).toMatchObject({ messages: 2, input: 2000, output: 200, cost: { currency: "USD" } });
    expect(done.usage.cost.total).toBeGreaterThan(0);
    expect(model.requestsFor("ct")[1]!.toolResults).toHaveLength(1);

    await c.ok("reply", { id, text: "thanks" });
    await untilRow(c, id, "the follow-up's answer", (r) => r.summary === "You are welcome.", 60_000);

    // A respawn goes on with the session its hook said (its SessionStart hook then says `resume`),
    // without its task again: the model sees the turns before, and the task once.
    await c.ok("respawn", { id });
    await untilRow(c, id, "resumed", (r) => r.conversation === "resumed" && r.view === "your turn", 60_000);
    await c.ok("reply", { id, text: "are you there?" });
    await untilRow(c, id, "an answer after the respawn", (r) => r.summary === "Still here.", 60_000);
    const last = model.requestsFor("ct").at(-1)!.text;
    expect(last).toContain("thanks");
    expect(last.split("[ct] write made.txt")).toHaveLength(2);
  }, 240_000);
});
