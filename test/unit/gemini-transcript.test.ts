/**
 * A terminal Gemini CLI job's conversation from its session file (server/cli/hooks/gemini-conversation.ts),
 * on the file the real Gemini CLI 0.61.0 wrote (test/fixtures/hooks/gemini/session.jsonl: a prompt,
 * a thought, a shell command run after its permission, a second prompt, a file not found), and on
 * lines it may write that the capture has not.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { geminiEntries } from "../../server/cli/hooks/gemini-conversation.js";
import { FIXTURES } from "../helpers/daemon.js";

const lines = fs
  .readFileSync(path.join(FIXTURES, "hooks/gemini/session.jsonl"), "utf8")
  .trimEnd()
  .split("\n");
const SHELL = "run_shell_command__run_shell_command_1796473251319_0";
const READ = "read_file__read_file_1796473258824_0";

describe("Gemini CLI's session file as a conversation", () => {
  it("says the prompts, the thought, the words, each tool call with its input and result", () => {
    const kept = new Map<string, string>();
    expect(lines.flatMap((l) => geminiEntries(l, kept))).toEqual([
      {
        kind: "message",
        role: "user",
        text: "[gt] write made.txt",
        at: Date.parse("2026-12-05T12:20:51.226Z"),
      },
      { kind: "thinking", role: "agent", text: "A file, then.", at: Date.parse("2026-12-05T12:20:51.473Z") },
      {
        kind: "message",
        role: "agent",
        text: "Writing the file.",
        at: Date.parse("2026-12-05T12:20:51.473Z"),
      },
      {
        kind: "tool",
        text: "echo hooked > made.txt",
        tool: {
          id: SHELL,
          name: "run_shell_command",
          status: "completed",
          input: JSON.stringify({ command: "echo hooked > made.txt" }, null, 2),
          output: "Output: (empty)\nProcess Group PGID: 23589",
        },
        at: Date.parse("2026-12-05T12:20:56.809Z"),
      },
      {
        kind: "message",
        role: "agent",
        text: "All done: wrote made.txt",
        at: Date.parse("2026-12-05T12:20:56.939Z"),
      },
      { kind: "message", role: "user", text: "read missing.txt", at: Date.parse("2026-12-05T12:20:58.779Z") },
      { kind: "message", role: "agent", text: "Reading it.", at: Date.parse("2026-12-05T12:20:58.839Z") },
      {
        kind: "tool",
        text: "missing.txt",
        tool: {
          id: READ,
          name: "read_file",
          status: "failed",
          input: JSON.stringify({ file_path: "missing.txt" }, null, 2),
          output: "File not found: /home/dev/repo/missing.txt",
        },
        at: Date.parse("2026-12-05T12:20:59.997Z"),
      },
      {
        kind: "message",
        role: "agent",
        text: "It is not there.",
        at: Date.parse("2026-12-05T12:21:00.043Z"),
      },
    ]);
  });

  it("sends a message written again only for what it gained", () => {
    const kept = new Map<string, string>();
    const first = lines.slice(0, 5).flatMap((l) => geminiEntries(l, kept));
    expect(first.map((e) => e.text)).toEqual(["[gt] write made.txt", "A file, then.", "Writing the file."]);
    // The same message again, its tool call added: the call only.
    const again = geminiEntries(lines[6]!, kept);
    expect(again).toMatchObject([{ kind: "tool", tool: { id: SHELL, status: "completed" } }]);
    expect(lines.flatMap((l) => geminiEntries(l, kept)).map((e) => e.text)).toEqual([
      "All done: wrote made.txt",
      "read missing.txt",
      "Reading it.",
      "missing.txt",
      "It is not there.",
    ]);
  });

  it("says a tool call that is running, then its end without its input again", () => {
    const kept = new Map<string, string>();
    const call = { id: "c1", name: "run_shell_command", args: { command: "ls\n-la" } };
    const at = (status: string, result?: object[]) =>
      JSON.stringify({ id: "m1", type: "gemini", content: "", toolCalls: [{ ...call, status, result }] });
    expect(geminiEntries(at("executing"), kept)).toEqual([
      {
        kind: "tool",
        text: "ls",
        tool: {
          id: "c1",
          name: "run_shell_command",
          status: "running",
          input: '{\n  "command": "ls\\n-la"\n}',
        },
      },
    ]);
    expect(geminiEntries(at("executing"), kept)).toEqual([]);
    const output =
      "<untrusted_context>\nOutput: a\n</untrusted_context>\n\n<hook_context>noted</hook_context>";
    expect(
      geminiEntries(at("cancelled", [{ functionResponse: { id: "c1", response: { output } } }]), kept),
    ).toEqual([
      {
        kind: "tool",
        text: "ls",
        tool: { id: "c1", name: "run_shell_command", status: "failed", output: "Output: a" },
      },
    ]);
  });

  it("says what the user typed, not the context the CLI or a hook added", () => {
    const prompt = {
      id: "u1",
      type: "user",
      content: [
        { text: "explain @a.ts\n--- Content from referenced files ---\n…" },
        { text: "<hook_context>x</hook_context>" },
      ],
      displayContent: [{ text: "explain @a.ts" }],
    };
    expect(geminiEntries(JSON.stringify(prompt))).toEqual([
      { kind: "message", role: "user", text: "explain @a.ts" },
    ]);
    const hooked = {
      id: "u2",
      type: "user",
      content: [{ text: "go" }, { text: "<hook_context>x</hook_context>" }],
    };
    expect(geminiEntries(JSON.stringify(hooked))).toEqual([{ kind: "message", role: "user", text: "go" }]);
    const setup = {
      id: "u3",
      type: "user",
      content: [{ text: "<session_context>\nThis is the Gemini CLI.</session_context>" }],
    };
    expect(geminiEntries(JSON.stringify(setup))).toEqual([]);
  });

  it("gives nothing for a line that is not JSON, nor for a record it does not know", () => {
    expect(geminiEntries('{"id":"m1","type":"gemini","cont')).toEqual([]);
    expect(geminiEntries("null")).toEqual([]);
    expect(geminiEntries(JSON.stringify({ id: "m2", type: "mystery", content: "hi" }))).toEqual([]);
    expect(geminiEntries(JSON.stringify({ id: "m3", type: "info", content: "Update available" }))).toEqual(
      [],
    );
    expect(geminiEntries(JSON.stringify({ $rewindTo: "m1" }))).toEqual([]);
    expect(
      geminiEntries(
        JSON.stringify({ id: "m4", type: "gemini", content: 7, thoughts: "x", toolCalls: [null, { id: 3 }] }),
      ),
    ).toEqual([]);
  });
});
