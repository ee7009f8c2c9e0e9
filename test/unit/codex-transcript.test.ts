/**
 * A terminal Codex job's conversation from its rollout file (server/cli/hooks/codex-conversation.ts),
 * on rollouts the real Codex 0.140.0 wrote in a terminal job (test/fixtures/hooks/codex/): a turn
 * with its reasoning, a command approved and run, one that failed, a patch and a plan, then a
 * follow-up; and a turn whose command the user declined.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { codexEntries } from "../../server/cli/hooks/codex-conversation.js";
import { FIXTURES } from "../helpers/daemon.js";

/** A fixture's lines read in order, with one `kept` between them (as transcript.ts does). */
function read(name: string, kept = new Map<string, string>()) {
  const text = fs.readFileSync(path.join(FIXTURES, "hooks/codex", name), "utf8");
  return text
    .trimEnd()
    .split("\n")
    .flatMap((line) => codexEntries(line, kept));
}

const at = (iso: string) => Date.parse(iso);

describe("Codex's rollout as the conversation", () => {
  it("the user's words, the reasoning, the agent's words once, each call then its result", () => {
    expect(read("rollout.jsonl")).toEqual([
      { kind: "message", role: "user", text: "[cx] write made.txt", at: at("2026-12-05T12:20:25.420Z") },
      {
        kind: "thinking",
        role: "agent",
        text: "The user wants a file; a shell command writes it.",
        at: at("2026-12-05T12:20:25.620Z"),
      },
      { kind: "message", role: "agent", text: "Writing the file.", at: at("2026-12-05T12:20:25.621Z") },
      {
        kind: "tool",
        text: "echo hooked > made.txt && cat made.txt",
        tool: {
          id: "call_1_0",
          name: "exec_command",
          status: "running",
          input: JSON.stringify(
            {
              cmd: "echo hooked > made.txt && cat made.txt",
              sandbox_permissions: "require_escalated",
              justification: "Write made.txt",
            },
            null,
            2,
          ),
        },
        at: at("2026-12-05T12:20:25.622Z"),
      },
      {
        kind: "tool",
        tool: { id: "call_1_0", name: "exec_command", status: "completed", output: "hooked" },
        at: at("2026-12-05T12:20:26.730Z"),
      },
      {
        kind: "thinking",
        role: "agent",
        text: "Check a file that is not there.",
        at: at("2026-12-05T12:20:26.947Z"),
      },
      {
        kind: "tool",
        text: "ls no-such-file",
        tool: {
          id: "call_2_0",
          name: "exec_command",
          status: "running",
          input: JSON.stringify({ cmd: "ls no-such-file" }, null, 2),
        },
        at: at("2026-12-05T12:20:26.948Z"),
      },
      {
        kind: "tool",
        tool: {
          id: "call_2_0",
          name: "exec_command",
          status: "failed",
          output: "bwrap: execvp codex-linux-sandbox: No such file or directory",
        },
        at: at("2026-12-05T12:20:27.840Z"),
      },
      { kind: "message", role: "agent", text: "Patching.", at: at("2026-12-05T12:20:28.023Z") },
      {
        kind: "tool",
        text: "notes.md",
        tool: {
          id: "call_3_0",
          name: "apply_patch",
          status: "running",
          input: "*** Begin Patch\n*** Add File: notes.md\n+hello\n*** End Patch\n",
        },
        at: at("2026-12-05T12:20:28.024Z"),
      },
      {
        kind: "tool",
        tool: {
          id: "call_3_0",
          name: "apply_patch",
          status: "completed",
          output: "Success. Updated the following files:\nA notes.md",
        },
        at: at("2026-12-05T12:20:30.342Z"),
      },
      {
        kind: "tool",
        text: "update_plan",
        tool: {
          id: "call_4_0",
          name: "update_plan",
          status: "running",
          input: JSON.stringify({ plan: [{ step: "write made.txt", status: "completed" }] }, null, 2),
        },
        at: at("2026-12-05T12:20:30.623Z"),
      },
      {
        kind: "tool",
        tool: { id: "call_4_0", name: "update_plan", status: "completed", output: "Plan updated" },
        at: at("2026-12-05T12:20:31.392Z"),
      },
      {
        kind: "message",
        role: "agent",
        text: "All done: wrote made.txt",
        at: at("2026-12-05T12:20:31.606Z"),
      },
      { kind: "message", role: "user", text: "thanks", at: at("2026-12-05T12:20:32.258Z") },
      { kind: "message", role: "agent", text: "You are welcome.", at: at("2026-12-05T12:20:32.511Z") },
    ]);
  });

  it("a command the user declined at its approval failed", () => {
    const entries = read("declined.jsonl");
    expect(entries.map((e) => [e.kind, e.role ?? e.tool?.status, e.text ?? e.tool?.output])).toEqual([
      ["message", "user", "[cx] write made.txt"],
      ["thinking", "agent", "The user wants a file; a shell command writes it."],
      ["message", "agent", "Writing the file."],
      ["tool", "running", "echo hooked > made.txt && cat made.txt"],
      ["tool", "failed", "aborted by user after 0.6s"],
    ]);
  });

  it("a result names its call's tool from an earlier hook's lines (kept between hooks)", () => {
    const kept = new Map([["call_9", "exec_command"]]);
    const line = JSON.stringify({
      type: "response_item",
      payload: { type: "function_call_output", call_id: "call_9", output: "Exit code: 2\nOutput:\nno\n" },
    });
    expect(codexEntries(line, kept)).toEqual([
      { kind: "tool", tool: { id: "call_9", name: "exec_command", status: "failed", output: "no" } },
    ]);
  });

  it("older shapes: a local shell call, a shell tool's JSON output, a user message that is context", () => {
    const kept = new Map<string, string>();
    const lines = [
      {
        type: "response_item",
        payload: {
          type: "local_shell_call",
          call_id: "ls_1",
          status: "completed",
          action: { type: "exec", command: ["bash", "-lc", "ls -a"] },
        },
      },
      {
        type: "response_item",
        payload: {
          type: "function_call_output",
          call_id: "ls_1",
          output: JSON.stringify({ output: ".\n..\n", metadata: { exit_code: 0, duration_seconds: 0.1 } }),
        },
      },
      {
        type: "event_msg",
        payload: { type: "user_message", message: "<user_instructions>", kind: "user_instructions" },
      },
    ].map((l) => JSON.stringify(l));
    expect(lines.flatMap((l) => codexEntries(l, kept))).toEqual([
      {
        kind: "tool",
        text: "ls -a",
        tool: {
          id: "ls_1",
          name: "shell",
          status: "running",
          input: JSON.stringify({ type: "exec", command: "ls -a" }, null, 2),
        },
      },
      { kind: "tool", tool: { id: "ls_1", name: "shell", status: "completed", output: ".\n.." } },
    ]);
  });

  it("a line that is not JSON, and a record it does not know, give nothing", () => {
    expect(
      codexEntries('{"timestamp":"2026-12-05T12:20:25.420Z","type":"event_msg","payload":{"type":"user_'),
    ).toEqual([]);
    expect(codexEntries("not json at all")).toEqual([]);
    expect(codexEntries('{"type":"compacted","payload":{"message":"a summary"}}')).toEqual([]);
    expect(
      codexEntries('{"type":"response_item","payload":{"type":"web_search_call","status":"completed"}}'),
    ).toEqual([]);
    expect(codexEntries("null")).toEqual([]);
    expect(codexEntries('{"type":"event_msg","payload":"text"}')).toEqual([]);
  });
});
