/**
 * A terminal Claude Code job's conversation, from the transcript its hooks name (a JSON line an
 * entry; sent as it grows by transcript.ts): the prompts (the user's words), Claude's thinking and
 * words, each tool call (its input) and its result (failed or not).
 */
import type { Entry } from "../../../sdk/ts/protocol/conversation.js";
import type { Kept, TranscriptParser } from "./transcript.js";

type Block = {
  type?: string;
  text?: unknown;
  thinking?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
};
type ResultBlock = { type?: string; tool_use_id?: unknown; content?: unknown; is_error?: unknown };

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const json = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

/** A tool result's text: a string, or its text blocks joined. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c: Block) => (c?.type === "text" ? str(c.text) : "")).join("\n");
}

/** A tool call as its title: its command, its file, its pattern … */
function titleOf(name: string, input: unknown): string {
  const a = (input ?? {}) as Record<string, unknown>;
  const main = a.command ?? a.file_path ?? a.path ?? a.pattern ?? a.url ?? a.description;
  return typeof main === "string" ? main.split("\n")[0]! : name;
}

/**
 * One transcript line as entries (none for what is not the conversation: meta, summaries, side
 * chains); `names` keeps tool calls' names by id, for their results (which name only the id).
 */
export function claudeEntries(line: string, names: Kept = new Map()): Entry[] {
  let e: {
    type?: unknown;
    isMeta?: unknown;
    isSidechain?: unknown;
    message?: { content?: unknown };
    timestamp?: unknown;
  };
  try {
    e = JSON.parse(line);
  } catch {
    return [];
  }
  if (!e || typeof e !== "object" || e.isMeta === true || e.isSidechain === true) return [];
  const at = typeof e.timestamp === "string" ? Date.parse(e.timestamp) : Number.NaN;
  const when = Number.isFinite(at) ? { at } : {};
  const content = e.message?.content;
  const out: Entry[] = [];
  if (e.type === "user") {
    if (typeof content === "string") {
      if (content.trim()) out.push({ kind: "message", role: "user", text: content.trim(), ...when });
      return out;
    }
    for (const b of Array.isArray(content) ? (content as ResultBlock[]) : []) {
      if (b?.type === "text" && str((b as Block).text).trim())
        out.push({ kind: "message", role: "user", text: str((b as Block).text).trim(), ...when });
      if (b?.type !== "tool_result" || typeof b.tool_use_id !== "string") continue;
      const output = resultText(b.content).trimEnd();
      const name = names.get(b.tool_use_id) ?? "tool";
      const status = b.is_error === true ? "failed" : "completed";
      out.push({
        kind: "tool",
        tool: { id: b.tool_use_id, name, status, ...(output ? { output } : {}) },
        ...when,
      });
    }
    return out;
  }
  if (e.type !== "assistant" || !Array.isArray(content)) return out;
  for (const b of content as Block[]) {
    if (b?.type === "thinking" && str(b.thinking).trim())
      out.push({ kind: "thinking", role: "agent", text: str(b.thinking).trim(), ...when });
    else if (b?.type === "text" && str(b.text).trim())
      out.push({ kind: "message", role: "agent", text: str(b.text).trim(), ...when });
    else if (b?.type === "tool_use" && typeof b.id === "string") {
      const name = str(b.name) || "tool";
      names.set(b.id, name);
      const tool = { id: b.id, name, status: "running" as const, input: json(b.input ?? {}) };
      out.push({ kind: "tool", text: titleOf(name, b.input), tool, ...when });
    }
  }
  return out;
}

/** Claude Code's transcript lines, read by sendTranscript (transcript.ts). */
export const claudeTranscript: TranscriptParser = { agent: "claude", entries: claudeEntries };
