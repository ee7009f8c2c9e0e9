/**
 * A terminal Claude Code job's conversation (protocol.md, "The conversation"), from the transcript
 * its hooks name (`transcript_path`: a JSON line an entry): at each hook, what the transcript gained
 * since the last one read is sent as entries (`conversation-append`). The prompts (the user's
 * words), Claude's thinking and words, each tool call (its input) and its result (failed or not).
 *
 * Where the last hook stopped is kept in the job's directory (`claude-conversation.json`: the
 * transcript and how far it was read), under a lock, so two hooks at once never send the same lines
 * twice: the one that does not get the lock leaves them to the next. Each send's request id names
 * the range it read, so a send whose answer was lost and is made again is kept once.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fitEntry } from "../../../sdk/ts/agent/conversation.js";
import type { Entry } from "../../../sdk/ts/protocol/conversation.js";

/** What one hook reads at most (a hook must be quick): the rest waits for the next hook. */
const MAX_READ = 4 * 1024 * 1024;
/** A lock older than this was left by a hook that died: taken over. */
const STALE_LOCK_MS = 10_000;
const STATE = "claude-conversation.json";

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

/** The names of tool calls by id, for their results (which name only the id). */
type Names = Map<string, string>;

/** One transcript line as entries (none for what is not the conversation: meta, summaries, side chains). */
export function claudeEntries(line: string, names: Names = new Map()): Entry[] {
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

interface State {
  file: string;
  bytes: number;
  names: [string, string][];
}

/**
 * What the transcript gained since the last hook read it, as entries, and the request id of that
 * range; null when there is nothing new, or another hook is reading (the lock is held). `sent`
 * sends them; only once it succeeded is the read range taken as done.
 */
export async function claudeConversation(
  jobDir: string,
  transcript: string,
  send: (entries: Entry[], requestId: string) => Promise<unknown>,
): Promise<void> {
  const lock = path.join(jobDir, `${STATE}.lock`);
  if (!takeLock(lock)) return;
  try {
    const stateFile = path.join(jobDir, STATE);
    let state: State = { file: transcript, bytes: 0, names: [] };
    try {
      const was = JSON.parse(fs.readFileSync(stateFile, "utf8")) as State;
      if (was.file === transcript) state = was; // a new session's transcript begins at its start
    } catch {
      // none yet
    }
    const fd = fs.openSync(transcript, "r");
    let text: string;
    try {
      const buf = Buffer.alloc(Math.min(MAX_READ, Math.max(0, fs.fstatSync(fd).size - state.bytes)));
      const n = fs.readSync(fd, buf, 0, buf.length, state.bytes);
      text = buf.subarray(0, n).toString("utf8");
    } finally {
      fs.closeSync(fd);
    }
    const end = text.lastIndexOf("\n"); // whole lines only: the last may be half written
    if (end < 0) return;
    const names: Names = new Map(state.names);
    const entries = text
      .slice(0, end)
      .split("\n")
      .flatMap((line) => claudeEntries(line, names))
      .map(fitEntry);
    const upTo = state.bytes + Buffer.byteLength(text.slice(0, end + 1));
    const range = createHash("sha256").update(`${transcript}:${state.bytes}`).digest("hex").slice(0, 16);
    for (let i = 0; i < entries.length; i += 100)
      await send(entries.slice(i, i + 100), `claude.${range}.${i / 100}`);
    const kept: State = { file: transcript, bytes: upTo, names: [...names].slice(-200) };
    fs.writeFileSync(stateFile, JSON.stringify(kept));
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** The lock, made with O_EXCL (one left by a hook that died is taken over once stale). */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.closeSync(fs.openSync(lock, "wx", 0o600));
      return true;
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age < STALE_LOCK_MS) return false;
      fs.rmSync(lock, { force: true });
    }
  }
  return false;
}
