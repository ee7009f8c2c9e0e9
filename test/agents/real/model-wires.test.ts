/**
 * The scripted model's wires, each proven by the real CLI that speaks it, run alone in its
 * simplest non-interactive form (`claude -p`, `codex exec`, `gemini -p`): the task's tag keys
 * the script, a tool call runs for real in the folder, its result comes back in the next
 * request, the answer's text is what the CLI prints, the usage the model reported is what the
 * CLI counts, and a scripted error ends the run with its message.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeEnv, codexEnv, geminiEnv, realAgent, runAgent } from "../../helpers/real-agents.js";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.js";

let model: ScriptedModel;
let base: string;

beforeAll(async () => {
  model = await startScriptedModel();
  base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-wires-"));
});
afterAll(async () => {
  await model.close();
  fs.rmSync(base, { recursive: true, force: true });
});

/** A folder of the test's own: the CLI's HOME and its working folder. */
function dirs(name: string) {
  const home = path.join(base, name, "home");
  const work = path.join(base, name, "work");
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(work, { recursive: true });
  return { home, work };
}

/** The JSON lines a CLI printed (`codex exec --json`). */
const jsonLines = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));

describe("Anthropic Messages, with claude -p", () => {
  const claude = (tag: string, home: string, work: string) =>
    runAgent(
      realAgent("claude"),
      ["-p", `[${tag}] write out.txt`, "--dangerously-skip-permissions", "--output-format", "json"],
      { cwd: work, env: claudeEnv(model.origin, home) },
    );

  it("a tool runs, its result comes back, the answer and the usage are Claude Code's", async () => {
    const { home, work } = dirs("claude");
    model.script(
      "cl",
      {
        text: "Writing the file.",
        tools: [{ name: "Bash", args: { command: "echo wired | tee out.txt", description: "write" } }],
      },
      { text: "The file is written.", usage: { prompt: 1234, completion: 56 } },
    );
    const run = await claude("cl", home, work);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(work, "out.txt"), "utf8")).toBe("wired\n");
    const result = JSON.parse(run.stdout);
    expect(result.result).toBe("The file is written.");
    expect(result.usage).toMatchObject({ input_tokens: 1000 + 1234, output_tokens: 100 + 56 });
    const [first, second] = model.requestsFor("cl");
    expect(first!.dialect).toBe("anthropic");
    expect(first!.tools).toContain("Bash");
    expect(second!.toolResults).toEqual(["wired"]);
    expect(model.requestsFor("cl")).toHaveLength(2);
  });

  it("a scripted error ends the run with its message", async () => {
    const { home, work } = dirs("claude-error");
    model.script("clx", { error: "the scripted model refuses" });
    const run = await claude("clx", home, work);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain("the scripted model refuses");
  });
});

// Codex's own OpenAI provider speaks the wire over a WebSocket (each request after the first
// sending only what is new); a provider of the user's (`wire_api = "responses"`) over HTTP.
describe.each([
  "scripted",
  "openai",
] as const)("OpenAI Responses, with codex exec (%s provider)", (provider) => {
  const codex = (tag: string, home: string, work: string) =>
    runAgent(
      realAgent("codex"),
      [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--json",
        `[${tag}] write out.txt`,
      ],
      { cwd: work, env: codexEnv(model.origin, home, [], provider) },
    );

  it("a tool runs, its result comes back, the answer and the usage are Codex's", async () => {
    const { home, work } = dirs(`codex-${provider}`);
    model.script(
      `cx-${provider}`,
      {
        text: "Writing the file.",
        tools: [{ name: "exec_command", args: { cmd: "echo wired | tee out.txt" } }],
      },
      { text: "The file is written.", usage: { prompt: 1234, completion: 56 } },
    );
    const run = await codex(`cx-${provider}`, home, work);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(work, "out.txt"), "utf8")).toBe("wired\n");
    const events = jsonLines(run.stdout);
    // Nothing said to the user but the answers (no "Falling back from WebSockets to HTTPS").
    expect(events.filter((e) => e.type === "error" || e.item?.type === "error")).toEqual([]);
    const said = events.filter((e) => e.type === "item.completed" && e.item.type === "agent_message");
    expect(said.map((e) => e.item.text)).toEqual(["Writing the file.", "The file is written."]);
    expect(events.find((e) => e.type === "turn.completed")?.usage).toMatchObject({
      input_tokens: 1000 + 1234,
      output_tokens: 100 + 56,
    });
    const [first, second] = model.requestsFor(`cx-${provider}`);
    expect(first!.dialect).toBe("responses");
    expect(first!.tools).toContain("exec_command");
    expect(second!.toolResults.join("\n")).toContain("wired");
    expect(model.requestsFor(`cx-${provider}`)).toHaveLength(2);
    // The second request is whole: the task, the call and its output.
    expect(second!.text).toContain(`[cx-${provider}] write out.txt`);
  });

  it("a scripted error ends the run with its message", async () => {
    const { home, work } = dirs(`codex-${provider}-error`);
    model.script(`cxx-${provider}`, { error: "the scripted model refuses" });
    const run = await codex(`cxx-${provider}`, home, work);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain("the scripted model refuses");
  });
});

describe("Gemini, with gemini -p", () => {
  const gemini = (tag: string, home: string, work: string) =>
    runAgent(realAgent("gemini"), ["-p", `[${tag}] write out.txt`, "--yolo", "-o", "json"], {
      cwd: work,
      env: geminiEnv(model.origin, home),
    });

  it("a tool runs, its result comes back, the answer and the usage are Gemini CLI's", async () => {
    const { home, work } = dirs("gemini");
    model.script(
      "gm",
      {
        text: "Writing the file.",
        tools: [{ name: "run_shell_command", args: { command: "echo wired | tee out.txt" } }],
      },
      { text: "The file is written.", usage: { prompt: 1234, completion: 56 } },
    );
    const run = await gemini("gm", home, work);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(work, "out.txt"), "utf8")).toBe("wired\n");
    const result = JSON.parse(run.stdout.slice(run.stdout.indexOf("{")));
    expect(result.response).toContain("The file is written.");
    // Its own asides (the choice of model) are counted under another role than the turn's.
    const models = Object.values(result.stats.models as Record<string, { roles: Record<string, any> }>);
    const main = models.map((m) => m.roles.main?.tokens).filter(Boolean);
    expect(main.reduce((n, t) => n + t.prompt, 0)).toBe(1000 + 1234);
    expect(main.reduce((n, t) => n + t.candidates, 0)).toBe(100 + 56);
    const [first, second] = model.requestsFor("gm");
    expect(first!.dialect).toBe("gemini");
    expect(first!.tools).toContain("run_shell_command");
    expect(second!.toolResults.join("\n")).toContain("wired");
    expect(model.requestsFor("gm")).toHaveLength(2);
  });

  it("a scripted error ends the run with its message", async () => {
    const { home, work } = dirs("gemini-error");
    model.script("gmx", { error: "the scripted model refuses" });
    const run = await gemini("gmx", home, work);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain("the scripted model refuses");
  });
});
