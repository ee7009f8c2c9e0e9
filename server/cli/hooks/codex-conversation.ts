/**
 * A terminal Codex job's conversation, from its rollout file (the `transcript_path` of its hooks'
 * input: a JSON line a record, `{timestamp, type, payload}`; sent as it grows by transcript.ts).
 *
 * Codex writes each thing twice: once as the model saw it (`response_item`: messages, reasoning,
 * tool calls and their outputs, with the instructions and environment context it injects as
 * messages too) and once as its own screen showed it (`event_msg`: the user's words, the agent's
 * words and reasoning, token counts, turn starts and ends). The words are read from the
 * `event_msg`s alone, which hold only what the user typed (or roost sent) and what the agent said;
 * the tool calls from the `response_item`s alone, which alone hold each call's input and output.
 */
import type { Entry } from "../../../sdk/ts/protocol/conversation.js";
import type { Kept, TranscriptParser } from "./transcript.js";

type Payload = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** A call's arguments: Codex keeps them as a JSON string; parsed, or as they are when not JSON. */
function parsed(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** A shell command given as argv: the script of `bash -lc SCRIPT`, else its words joined. */
function argv(command: unknown): string {
  if (!Array.isArray(command)) return str(command);
  const words = command.map(str);
  if (words.length === 3 && /^(ba|z)?sh$/.test(words[0]!.split("/").pop()!) && /^-l?c$/.test(words[1]!))
    return words[2]!;
  return words.join(" ");
}

/** An apply_patch's files (its `*** Add File: PATH` lines), which say what it does. */
function patchFiles(patch: string): string {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)]
    .map((m) => m[1]!.trim())
    .join(", ");
}

/** A tool call as its title: its command, its files, its path …; else its name. */
function titleOf(name: string, input: unknown): string {
  if (typeof input === "string") return (name === "apply_patch" && patchFiles(input)) || name;
  const a = (input ?? {}) as Record<string, unknown>;
  if (typeof a.input === "string" && patchFiles(a.input)) return patchFiles(a.input);
  const main = [a.cmd, argv(a.command), a.path, a.file_path, a.query, a.url, a.pattern].find(
    (v): v is string => typeof v === "string" && v.trim() !== "",
  );
  return main ? main.trim().split("\n")[0]! : name;
}

/** A call's input as text: its arguments' JSON, indented; a freeform tool's text as it is. */
const inputText = (input: unknown): string =>
  typeof input === "string" ? input : JSON.stringify(input ?? {}, null, 2);

/** The lines about a command's run before its output, as Codex's shell tools write them. */
const RUN_HEADER =
  /^((?:(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count|Exit code|Total output lines)\b[^\n]*\n)+)Output:\n/;

/** A call's output when the user declined it at its approval or stopped the turn. */
const DECLINED = /^(?:exec command )?(?:aborted|rejected) by user\b/;

/**
 * A call's output as what the tool gave back, and whether it failed. A command's output begins
 * with lines about the run (`Chunk ID: …`, `Wall time: …`, `Process exited with code N`, `Exit
 * code: N`, then `Output:`), which say its exit code: the output is what follows. An older shell
 * tool's is JSON (`{output, metadata: {exit_code}}`); an MCP tool's, content parts. A call the
 * user declined says `aborted by user after 0.6s`.
 */
function outputOf(output: unknown): { text: string; failed: boolean } {
  if (Array.isArray(output))
    return { text: output.map((p) => str((p as Payload)?.text)).join("\n"), failed: false };
  if (output && typeof output === "object") {
    const o = output as Payload;
    const inner = outputOf(o.content);
    return { text: inner.text, failed: inner.failed || o.success === false };
  }
  const text = str(output);
  const header = RUN_HEADER.exec(text);
  if (header) {
    const code = /^(?:Process exited with code|Exit code:) (-?\d+)$/m.exec(header[1]!)?.[1];
    return { text: text.slice(header[0].length), failed: code !== undefined && code !== "0" };
  }
  if (text.startsWith("{")) {
    const o = parsed(text) as { output?: unknown; metadata?: { exit_code?: unknown } } | string;
    if (typeof o === "object" && o && typeof o.output === "string") {
      const code = o.metadata?.exit_code;
      return { text: o.output, failed: typeof code === "number" && code !== 0 };
    }
  }
  return { text, failed: DECLINED.test(text) };
}

/** A tool call starting: its name kept by its id, for its output (which names only the id). */
function called(id: string, name: string, input: unknown, kept: Kept, when: { at?: number }): Entry {
  kept.set(id, name);
  const tool = { id, name, status: "running" as const, input: inputText(input) };
  return { kind: "tool", text: titleOf(name, input), tool, ...when };
}

/** One rollout line as entries: none for what is not the conversation, or not known. */
export function codexEntries(line: string, kept: Kept = new Map()): Entry[] {
  let r: { timestamp?: unknown; type?: unknown; payload?: Payload };
  try {
    r = JSON.parse(line);
  } catch {
    return [];
  }
  const p = r && typeof r === "object" ? r.payload : undefined;
  if (!p || typeof p !== "object") return [];
  const at = typeof r.timestamp === "string" ? Date.parse(r.timestamp) : Number.NaN;
  const when = Number.isFinite(at) ? { at } : {};
  const words = (kind: "message" | "thinking", role: "user" | "agent", v: unknown): Entry[] =>
    str(v).trim() ? [{ kind, role, text: str(v).trim(), ...when }] : [];

  if (r.type === "event_msg") {
    switch (p.type) {
      case "user_message":
        // Older Codex said so when a user message was its own context (`kind` other than plain).
        if (p.kind !== undefined && p.kind !== "plain") return [];
        return words("message", "user", p.message);
      case "agent_message":
        return words("message", "agent", p.message);
      case "agent_reasoning":
        return words("thinking", "agent", p.text);
      default:
        return [];
    }
  }
  if (r.type !== "response_item") return [];
  switch (p.type) {
    case "function_call":
    case "custom_tool_call": {
      const id = str(p.call_id);
      if (!id) return [];
      const input = p.type === "function_call" ? parsed(p.arguments) : str(p.input);
      return [called(id, str(p.name) || "tool", input, kept, when)];
    }
    case "local_shell_call": {
      const id = str(p.call_id) || str(p.id);
      const action = (p.action ?? {}) as Payload;
      if (!id) return [];
      return [called(id, "shell", { ...action, command: argv(action.command) }, kept, when)];
    }
    case "function_call_output":
    case "custom_tool_call_output": {
      const id = str(p.call_id);
      if (!id) return [];
      const { text, failed } = outputOf(p.output);
      const output = text.trimEnd();
      const name = kept.get(id) ?? "tool";
      const status = failed ? ("failed" as const) : ("completed" as const);
      return [{ kind: "tool", tool: { id, name, status, ...(output ? { output } : {}) }, ...when }];
    }
    default:
      return [];
  }
}

/** Codex's rollout lines, read by sendTranscript (transcript.ts). */
export const codexTranscript: TranscriptParser = { agent: "codex", entries: codexEntries };
