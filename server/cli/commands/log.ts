/**
 * `roost log`: a job's conversation, when its agent sent one (conversation-files.ts), else what it
 * printed, from the transcript the pty host keeps on disk ($ROOST_HOME/jobs/<id>/transcript.1.log,
 * the older part, then transcript.log; `--terminal` asks for it whatever the job has). The files
 * are read directly, so it works once the job has ended and while the daemon is down.
 */
import fs from "node:fs";
import path from "node:path";
import { readConversation } from "../../conversation-files.js";
import { checkHome } from "../../home.js";
import { jobDir, roostPaths } from "../../paths.js";
import { CliError, type Command, printJson, str, UsageError } from "../command.js";
import { conversationText } from "../conversation-text.js";
import { paint, wantsColour } from "../format.js";
import { io } from "../io.js";
import { plainText } from "../plain-text.js";
import { altScreenAfter, terminalReset } from "../terminal.js";

const OLDER = "transcript.1.log";
const NEWEST = "transcript.log";
/** A job id names a directory under jobs/: the pty host's rule for it. */
const JOB_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

function readOrNull(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

const inode = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.ino ?? null;

/**
 * Both files, oldest first; null when neither holds anything. The host may move the newest file
 * to the older one's place meanwhile: then the two read are not consecutive, and they are read again.
 */
export function readTranscript(dir: string): Buffer | null {
  for (let attempt = 0; ; attempt++) {
    const before = inode(path.join(dir, OLDER));
    const older = readOrNull(path.join(dir, OLDER));
    const newest = readOrNull(path.join(dir, NEWEST));
    if (inode(path.join(dir, OLDER)) !== before && attempt < 3) continue;
    const all = Buffer.concat([older ?? Buffer.alloc(0), newest ?? Buffer.alloc(0)]);
    return all.length ? all : null;
  }
}

/** The last `n` lines of `buf` (a final newline ends the last line; it does not start another). */
export function lastLines(buf: Buffer, n: number): Buffer {
  if (n === 0) return buf.subarray(0, 0);
  let start = buf.length > 0 && buf[buf.length - 1] === 0x0a ? buf.length - 1 : buf.length;
  for (let i = 0; i < n; i++) {
    if (start === 0) return buf;
    const nl = buf.lastIndexOf(0x0a, start - 1);
    if (nl === -1) return buf;
    start = nl;
  }
  return buf.subarray(start + 1);
}

function parseTail(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n))
    throw new UsageError(`--tail must be a whole number of lines, not ${JSON.stringify(raw)}`);
  return n;
}

export const log: Command = {
  name: "log",
  args: "ID",
  arity: [1, 1],
  summary:
    "Print a job's conversation, or what it printed (its terminal's transcript), also once it has ended.",
  details:
    "A job whose agent sent its conversation (an ACP agent, pi) has it printed: its messages,\n" +
    "tool calls with their input and output, plans, diffs, the permissions asked and the answers\n" +
    "(--tail N: the last N of them; --json: {id, entries}). --terminal prints its terminal's\n" +
    "transcript instead, as does a job without one.\n" +
    "The transcript is as written: a terminal renders it (`| less -R` pages it). --plain reads as text: escape\n" +
    "sequences removed, and a line written over (with \\r) as it ended up. It is the terminal's\n" +
    "text, the screen as you would have seen it: the prompt and the typed task echoed included,\n" +
    "not only what the program printed. The transcript is read\n" +
    "from $ROOST_HOME/jobs/ID/, so roost need not be running. --json: {id, bytes, text}, the\n" +
    "transcript's size in bytes and its plain text (the last N lines with --tail).",
  options: {
    plain: {
      type: "boolean",
      help: "the screen as text (prompt and echo included): escape sequences removed",
    },
    tail: { type: "string", value: "N", help: "only the last N lines (of a conversation: entries)" },
    terminal: { type: "boolean", help: "the terminal's transcript, even for a job with a conversation" },
  },
  examples: ["roost log j3", "roost log j3 --terminal --plain --tail 20"],
  async run({ positionals: [id], values, json, env }) {
    const tail = parseTail(str(values, "tail"));
    if (!JOB_ID.test(id!)) throw new UsageError(`${JSON.stringify(id)} is not a job id (such as j3)`);
    const paths = roostPaths(env);
    checkHome(paths.home); // a home others may write holds what they chose, not the job's output
    const entries = values.terminal || values.plain ? [] : readConversation(jobDir(paths, id!));
    if (entries.length) {
      if (json)
        printJson({ id, entries: tail === undefined ? entries : entries.slice(-tail || entries.length) });
      else io().stdout.write(conversationText(entries, paint(wantsColour(io().stdout, env)), tail));
      return 0;
    }
    const transcript = readTranscript(jobDir(paths, id!));
    if (!transcript) throw new CliError(`no transcript for ${id} (no such job, or it printed nothing)`);
    if (json || values.plain) {
      let text = plainText(transcript.toString("utf8"));
      if (tail !== undefined) text = lastLines(Buffer.from(text), tail).toString("utf8");
      if (json) printJson({ id, bytes: transcript.length, text });
      else io().stdout.write(text);
      return 0;
    }
    const bytes = tail === undefined ? transcript : lastLines(transcript, tail);
    io().stdout.write(bytes);
    // What the job turned on (a hidden cursor, mouse reports, the alternate screen) is turned off.
    if (io().stdout.isTTY) io().stdout.write(terminalReset(altScreenAfter(bytes.toString("latin1"), false)));
    return 0;
  },
};
