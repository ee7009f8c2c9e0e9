/**
 * A terminal Gemini CLI job's conversation, from the session file its hooks name (chats/session-*.jsonl
 * under its project's temp directory; sent as it grows by transcript.ts): the user's prompts, the
 * model's thoughts and words, each tool call (its input) and its result (failed or not).
 *
 * A message record ({id, type: user|gemini|info|error|…, content, thoughts, toolCalls}) is written
 * again, whole and under the same id, each time it grows (its tool calls, their results, its
 * tokens), so what was sent of it is kept by id and only what is new is sent. `$set` records change
 * the session's metadata or lay its whole history again (at its start, with the context Gemini CLI
 * injects; after a compression or a turn undone): none of that is news; nor is a `$rewindTo`.
 */
import type { Entry } from "../../../sdk/ts/protocol/conversation.js";
import type { Kept, TranscriptParser } from "./transcript.js";

type Part = { text?: unknown; thought?: unknown; functionResponse?: { response?: unknown } };
type Thought = { subject?: unknown; description?: unknown };
type ToolCall = {
  id?: unknown;
  name?: unknown;
  args?: unknown;
  result?: unknown;
  status?: unknown;
  description?: unknown;
  timestamp?: unknown;
};
type Message = {
  id?: unknown;
  type?: unknown;
  timestamp?: unknown;
  content?: unknown;
  displayContent?: unknown;
  thoughts?: unknown;
  toolCalls?: unknown;
};

/** What was sent of a message: its text, how many of its thoughts. */
interface Sent {
  text: string;
  thoughts: number;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const json = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

/**
 * Context Gemini CLI adds to a prompt as parts of their own (the session's setup, a hook's
 * additional context): the model's to read, not what the user said.
 */
const INJECTED = /^\s*<(session_context|hook_context)>/;

/** A message's words: a string, or its text parts joined (not its thoughts, nor injected context). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content.trim();
  if (!Array.isArray(content)) return "";
  return content
    .map((p: Part) => (p && p.thought !== true && !INJECTED.test(str(p.text)) ? str(p.text) : ""))
    .join("")
    .trim();
}

/** A tool's statuses as roost says them: done well, done badly, or still on its way. */
function statusOf(status: unknown): "pending" | "running" | "completed" | "failed" {
  if (status === "success") return "completed";
  if (status === "error" || status === "cancelled") return "failed";
  if (status === "scheduled" || status === "validating" || status === "awaiting_approval") return "pending";
  return "running";
}

/**
 * What a tool gave the model: its function response's output or error. Gemini CLI wraps a tool's
 * output in `<untrusted_context>` (for the model, to treat it as data) and may add a hook's context
 * after it: the output is what is inside.
 */
function outputOf(result: unknown): string {
  if (!Array.isArray(result)) return "";
  return result
    .map((p: Part) => {
      const r = p?.functionResponse?.response;
      if (r === undefined || r === null) return str(p?.text);
      const o = r as { output?: unknown; error?: unknown };
      return typeof o.output === "string" ? o.output : typeof o.error === "string" ? o.error : json(r);
    })
    .join("\n")
    .replace(/\n*<hook_context>[\s\S]*?<\/hook_context>\s*$/, "")
    .replace(/^\s*<untrusted_context>\n?([\s\S]*?)\n?<\/untrusted_context>\s*$/, "$1")
    .replaceAll("&lt;/untrusted_context&gt;", "</untrusted_context>")
    .trimEnd();
}

/**
 * A tool call as its title: its command, its file, its pattern …; else the call's own description
 * (which, where the call had none, is the tool's whole manual: its first line only).
 */
function titleOf(call: ToolCall, name: string): string {
  const a = (call.args ?? {}) as Record<string, unknown>;
  const main =
    a.command ?? a.file_path ?? a.absolute_path ?? a.dir_path ?? a.path ?? a.pattern ?? a.url ?? a.query;
  const title = typeof main === "string" && main.trim() ? main : str(call.description);
  return title.trim().split("\n")[0] || name;
}

/**
 * One session-file line as entries (none for metadata, history laid again, info and errors, or a
 * line that is not a record); `kept` remembers what was sent of each message and tool call.
 */
export function geminiEntries(line: string, kept: Kept = new Map()): Entry[] {
  let m: Message;
  try {
    m = JSON.parse(line);
  } catch {
    return [];
  }
  if (!m || typeof m !== "object" || typeof m.id !== "string") return [];
  if (m.type !== "user" && m.type !== "gemini") return [];
  const at = typeof m.timestamp === "string" ? Date.parse(m.timestamp) : Number.NaN;
  const when = Number.isFinite(at) ? { at } : {};
  const key = `msg:${m.id}`;
  let sent: Sent = { text: "", thoughts: 0 };
  try {
    sent = { ...sent, ...JSON.parse(kept.get(key) ?? "{}") };
  } catch {
    // kept by another version: taken as nothing sent
  }
  const out: Entry[] = [];
  // A prompt's displayContent is what the user typed, where its content says more (files it names).
  const text = (m.type === "user" && textOf(m.displayContent)) || textOf(m.content);
  const role = m.type === "user" ? "user" : "agent";
  if (m.type === "gemini") {
    const thoughts = Array.isArray(m.thoughts) ? (m.thoughts as Thought[]) : [];
    for (const t of thoughts.slice(sent.thoughts)) {
      const words = [str(t?.subject).trim(), str(t?.description).trim()].filter(Boolean).join("\n\n");
      if (words) out.push({ kind: "thinking", role: "agent", text: words, ...when });
    }
    sent.thoughts = Math.max(sent.thoughts, thoughts.length);
  }
  if (text && text !== sent.text) {
    // Grown: only the rest is new. Changed: the whole of it.
    const rest = sent.text && text.startsWith(sent.text) ? text.slice(sent.text.length).trim() : text;
    if (rest) out.push({ kind: "message", role, text: rest, ...when });
    sent.text = text;
  }
  if (out.length > 0) keep(kept, key, JSON.stringify(sent));
  if (m.type === "gemini" && Array.isArray(m.toolCalls))
    for (const call of m.toolCalls as ToolCall[]) out.push(...toolEntries(call, kept, when));
  return out;
}

/** Kept as the latest (what is kept between hooks is the latest 500: a message still growing stays). */
function keep(kept: Kept, key: string, value: string): void {
  kept.delete(key);
  kept.set(key, value);
}

/** A tool call's entry when it is new or its status changed: its input and title, its output once it has one. */
function toolEntries(call: ToolCall, kept: Kept, when: { at?: number }): Entry[] {
  if (!call || typeof call.id !== "string" || !call.id) return [];
  const key = `tool:${call.id}`;
  const status = statusOf(call.status);
  const was = kept.get(key);
  if (was === status) return [];
  keep(kept, key, status);
  const name = str(call.name) || "tool";
  const output = status === "completed" || status === "failed" ? outputOf(call.result) : "";
  const tool = {
    id: call.id,
    name,
    status,
    ...(was === undefined ? { input: json(call.args ?? {}) } : {}),
    ...(output ? { output } : {}),
  };
  // The call's own time (when it ended), where it says one.
  const at = typeof call.timestamp === "string" ? Date.parse(call.timestamp) : Number.NaN;
  return [{ kind: "tool", text: titleOf(call, name), tool, ...(Number.isFinite(at) ? { at } : when) }];
}

/** Gemini CLI's session-file lines, read by sendTranscript (transcript.ts). */
export const geminiTranscript: TranscriptParser = { agent: "gemini", entries: geminiEntries };
