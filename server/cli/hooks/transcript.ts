/**
 * A terminal agent's conversation (protocol.md, "The conversation"), from the transcript file its
 * hooks name (`transcript_path`: Claude Code's, Codex's rollout and Gemini CLI's session, each a
 * JSON line a record): at each hook, what the file gained since the last one read is sent as
 * entries (`conversation-append`), each agent's lines read by its own parser (claude-conversation.ts,
 * codex-conversation.ts, gemini-conversation.ts).
 *
 * Where the last hook stopped is kept in the job's directory (`AGENT-conversation.json`: the file,
 * how far it was read, and what the parser keeps between lines), under a lock, so two hooks at once
 * never send the same lines twice: the one that does not get the lock leaves them to the next. Each
 * send's request id names the range it read, so a send whose answer was lost and is made again is
 * kept once.
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
/** What a parser keeps between hooks, its latest this many (tool names by call id, messages seen). */
const MAX_KEPT = 500;

/**
 * What a parser keeps between lines, and between hooks: a tool call's name by its id (a result
 * names only the id), or what of a message was sent already (a record written again as it grows).
 */
export type Kept = Map<string, string>;

/** One agent's transcript lines as entries: its name (the request ids', the state file's) and its reader. */
export interface TranscriptParser {
  agent: string;
  entries(line: string, kept: Kept): Entry[];
}

interface State {
  file: string;
  bytes: number;
  kept: [string, string][];
}

/**
 * Sends what the transcript gained since the last hook read it, as entries; nothing when there is
 * nothing new, or another hook is reading (the lock is held). Only once `send` succeeded is the
 * read range taken as done.
 */
export async function sendTranscript(
  jobDir: string,
  transcript: string,
  parser: TranscriptParser,
  send: (entries: Entry[], requestId: string) => Promise<unknown>,
): Promise<void> {
  const stateFile = path.join(jobDir, `${parser.agent}-conversation.json`);
  const lock = `${stateFile}.lock`;
  if (!takeLock(lock)) return;
  try {
    let state: State = { file: transcript, bytes: 0, kept: [] };
    try {
      const was = JSON.parse(fs.readFileSync(stateFile, "utf8")) as State & { names?: [string, string][] };
      // A new session's transcript begins at its start. (`names`: what the first Claude reader kept.)
      if (was.file === transcript) state = { ...was, kept: was.kept ?? was.names ?? [] };
    } catch {
      // none yet
    }
    const text = readFrom(transcript, state.bytes);
    const end = text.lastIndexOf("\n"); // whole lines only: the last may be half written
    if (end < 0) return;
    const kept: Kept = new Map(state.kept);
    const entries = text
      .slice(0, end)
      .split("\n")
      .flatMap((line) => parser.entries(line, kept))
      .map(fitEntry);
    const upTo = state.bytes + Buffer.byteLength(text.slice(0, end + 1));
    const range = createHash("sha256").update(`${transcript}:${state.bytes}`).digest("hex").slice(0, 16);
    for (let i = 0; i < entries.length; i += 100)
      await send(entries.slice(i, i + 100), `${parser.agent}.${range}.${i / 100}`);
    const next: State = { file: transcript, bytes: upTo, kept: [...kept].slice(-MAX_KEPT) };
    fs.writeFileSync(stateFile, JSON.stringify(next));
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** The file from `offset` on, at most MAX_READ bytes of it. */
function readFrom(file: string, offset: number): string {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(Math.min(MAX_READ, Math.max(0, fs.fstatSync(fd).size - offset)));
    const n = fs.readSync(fd, buf, 0, buf.length, offset);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    fs.closeSync(fd);
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
