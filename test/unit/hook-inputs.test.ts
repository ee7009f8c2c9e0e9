/**
 * What `roost hook` makes of each CLI's hook input (server/cli/hooks/), on inputs captured from
 * the real Claude Code 2.1.83 (test/fixtures/hooks/claude/: a permission asked for a Bash command,
 * run, the turn's end, and its transcript's assistant entries); and the menu a permission prompt
 * shows, read off the screen (server/core/terminals/screen-menu.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { claudeSaid } from "../../server/cli/hooks/claude.js";
import { codexSaid } from "../../server/cli/hooks/codex.js";
import { geminiSaid } from "../../server/cli/hooks/gemini.js";
import { claudeUsage } from "../../server/cli/hooks/usage.js";
import { withHooks } from "../../server/core/jobs/agent-hooks.js";
import { menuIn } from "../../server/core/terminals/screen-menu.js";
import { FIXTURES } from "../helpers/daemon.js";

const captured = (event: string) =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, "hooks/claude", `${event}.json`), "utf8"));

describe("Claude Code's hook inputs", () => {
  it("say the session, the prompt, the tool, the ask, the turn's end", () => {
    expect(claudeSaid("SessionStart", captured("SessionStart"))).toEqual({
      event: "session",
      session: "74786183-3471-46fc-9ce6-1e0c8c20ce6c",
      resumed: false,
      model: "claude-sonnet-4-6",
    });
    expect(claudeSaid("UserPromptSubmit", captured("UserPromptSubmit"))).toEqual({
      event: "prompt",
      summary: "[tool] make a file",
    });
    expect(claudeSaid("PreToolUse", captured("PreToolUse"))).toEqual({
      event: "tool",
      tool: "Bash",
      summary: "echo hello > made.txt",
    });
    expect(claudeSaid("PermissionRequest", captured("PermissionRequest"))).toEqual({
      event: "ask",
      tool: "Bash",
      summary: "echo hello > made.txt",
      question: "Claude needs your permission to use Bash",
    });
    expect(claudeSaid("Notification", captured("Notification"))).toEqual({
      event: "ask",
      question: "Claude needs your permission to use Bash",
    });
    expect(claudeSaid("PostToolUse", captured("PostToolUse"))).toEqual({ event: "tool-done" });
    // Its transcript is not there: the turn's end without usage.
    expect(claudeSaid("Stop", captured("Stop"))).toEqual({
      event: "turn-end",
      summary: "All done: wrote made.txt",
    });
    expect(claudeSaid("SessionEnd", captured("SessionEnd"))).toEqual({ event: "session-end" });
    expect(claudeSaid("Notification", { notification_type: "auth_success", message: "x" })).toBeNull();
    expect(claudeSaid("SubagentStop", {})).toBeNull();
  });

  it("sum the transcript's usage, each message once, priced by its model", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-hooks-"));
    try {
      const file = path.join(dir, "t.jsonl");
      const text = fs.readFileSync(path.join(FIXTURES, "hooks/claude/transcript.jsonl"), "utf8");
      // A message streamed as two entries of one id counts once; a line being written is passed over.
      const first = text.split("\n")[0]!;
      fs.writeFileSync(file, `${first}\n${text}{"type":"assistant","mess`);
      const said = claudeUsage(file);
      // Two messages of claude-sonnet-4-6, each 1200 in: 30 and 20 out ($3 and $15 a million).
      expect(said.usage).toEqual({
        input: 2400,
        output: 50,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 2450,
        messages: 2,
        cost: { total: 0.00795, currency: "USD" },
      });
      expect(said.context).toEqual({ tokens: 1220 });
      // A model roost has no price for: tokens alone.
      fs.writeFileSync(file, text.replaceAll("claude-sonnet-4-6", "claude-next-1"));
      expect(claudeUsage(file).usage).not.toHaveProperty("cost");
      expect(claudeUsage(path.join(dir, "none.jsonl"))).toEqual({});
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Codex's and Gemini CLI's hook inputs", () => {
  it("say the same steps in roost's words", () => {
    const tool = { tool_name: "shell", tool_input: { command: ["bash", "-lc", "ls"] } };
    expect(codexSaid("PreToolUse", tool)).toEqual({ event: "tool", tool: "shell", summary: "bash -lc ls" });
    expect(codexSaid("Stop", { last_assistant_message: "done." })).toEqual({
      event: "turn-end",
      summary: "done.",
    });
    expect(codexSaid("notify", { type: "agent-turn-complete", "last-assistant-message": "ok" })).toEqual({
      event: "turn-end",
      summary: "ok",
    });
    expect(
      geminiSaid("BeforeTool", { tool_name: "write_file", tool_input: { file_path: "/a/b.txt" } }),
    ).toEqual({
      event: "tool",
      tool: "write_file",
      summary: "/a/b.txt",
    });
    expect(geminiSaid("AfterAgent", { prompt_response: "Hi" })).toEqual({ event: "turn-end", summary: "Hi" });
    expect(geminiSaid("Notification", { notification_type: "ToolPermission", message: "Allow?" })).toEqual({
      event: "ask",
      question: "Allow?",
    });
  });
});

describe("a permission prompt's menu on the screen", () => {
  const view = (lines: string[], cursorY = lines.length - 1) => ({ lines, cursorY, busy: false });

  it("is its numbered options, the nearest run of them", () => {
    // As Claude Code 2.1.83 draws it.
    const claude = [
      " Bash command",
      "   echo hello > made.txt",
      " Do you want to proceed?",
      " ❯ 1. Yes",
      "   2. Yes, and always allow access to work/ from this project",
      "   3. No",
      " Esc to cancel · Tab to amend",
    ];
    expect(menuIn(view(claude))).toEqual({
      labels: ["Yes", "Yes, and always allow access to work/ from this project", "No"],
      keys: ["1", "2", "3"],
    });
    expect(menuIn(view(["│ › 1. Yes, proceed │", "│   2. No, and tell Codex what to do │"]))).toEqual({
      labels: ["Yes, proceed", "No, and tell Codex what to do"],
      keys: ["1", "2"],
    });
  });

  it("is none where a list is not a menu: one item, or numbers out of order", () => {
    expect(menuIn(view(["1. Only one", "❯ "]))).toBeNull();
    expect(menuIn(view(["2. Two", "3. Three"]))).toBeNull();
    expect(menuIn(view(["Steps:", "all good"]))).toBeNull();
  });
});

describe("a hooked start's command and environment", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-hooked-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const gemini = (env: Record<string, string>) =>
    withHooks(
      dir,
      {
        command: ["gemini"],
        cwd: "/",
        env,
        task: "type",
        protocol: false,
        hooks: { agent: "gemini", taskArg: false },
      },
      null,
      {},
    );

  it("tells Gemini CLI it is not in CI (else it runs headless in the job's terminal and exits)", () => {
    const inCi = gemini({ CI: "true" });
    expect(inCi.env.CI).toBe("false");
    expect(inCi.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH).toMatch(/gemini-settings\.json$/);
    expect(gemini({ CI: "false" }).env.CI).toBeUndefined();
    expect(gemini({ CI: "1" }).env.CI).toBeUndefined();
  });
});
