/**
 * The jobs' conversations (docs/protocol.md, "The conversation"), kept in each job's directory as
 * JSON lines, one entry a line, numbered from 1 (`n`) in the order they came. Bounded as the
 * terminal's transcript is: past `bound` bytes the file becomes `conversation.1.jsonl` (replacing
 * an older one) and a new one is begun, so a job keeps at most twice the bound and its newest
 * entries are always in `conversation.jsonl`. Read by server/conversation-files.ts (`roost log`
 * reads the same files).
 *
 * What it keeps in memory, for the jobs whose conversation was touched lately: the last `n`, the
 * newest entries (what a hub following a job asks for again and again) and the request ids of the
 * last appends (an append sent again after a restart is not kept twice: each entry carries its
 * append's request id on disk, so the ids are found again when a restarted daemon first reads it).
 */
import fs from "node:fs";
import path from "node:path";
import { type Entry, type KeptEntry, LIMITS } from "../../sdk/ts/protocol/index.js";
import { CONVERSATION_FILE, CONVERSATION_OLDER, readConversation } from "../conversation-files.js";
import { openOwn } from "../home.js";

/** The newest entries kept in memory per job, and their size at most. */
const RECENT = 500;
const RECENT_BYTES = 1024 * 1024;
/** Request ids remembered per job. */
const REQUEST_IDS = 100;
/** Jobs whose conversation is kept in memory at once (the least lately touched let go). */
const JOBS_KEPT = 32;

interface Appended {
  first: number;
  last: number;
}

interface Kept {
  last: number;
  /** The newest entries, oldest first, each with its line's length. */
  recent: { entry: KeptEntry; bytes: number }[];
  recentBytes: number;
  ids: Map<string, Appended>;
  /** The size of conversation.jsonl. */
  bytes: number;
}

/** An entry as stored: `rid`, its append's request id, is the store's alone. */
type Line = KeptEntry & { rid?: string };

export class Conversations {
  private readonly jobs = new Map<string, Kept>();

  constructor(
    private readonly jobsDir: string,
    private readonly bound: number = LIMITS.conversationBytes,
  ) {}

  /** Adds the entries, numbered on from the job's last, `at` now when not given. */
  append(
    jobId: string,
    entries: readonly Entry[],
    requestId: string | undefined,
    now: number,
  ): Appended & { duplicate?: true } {
    const kept = this.kept(jobId);
    const before = requestId ? kept.ids.get(requestId) : undefined;
    if (before) return { ...before, duplicate: true };
    const first = kept.last + 1;
    const lines = entries.map((e, i): Line => {
      const entry: Line = { ...e, n: first + i, at: e.at ?? now };
      if (requestId) entry.rid = requestId;
      return entry;
    });
    const text = lines.map((l) => `${JSON.stringify(l)}\n`);
    const data = text.join("");
    const dir = path.join(this.jobsDir, jobId);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, CONVERSATION_FILE);
    if (kept.bytes > 0 && kept.bytes + Buffer.byteLength(data) > this.bound) {
      fs.renameSync(file, path.join(dir, CONVERSATION_OLDER));
      kept.bytes = 0;
    }
    const fd = openOwn(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT);
    try {
      fs.writeSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    kept.bytes += Buffer.byteLength(data);
    kept.last = first + entries.length - 1;
    for (const [i, line] of lines.entries()) this.remember(kept, line, text[i]!.length);
    const appended = { first, last: kept.last };
    if (requestId) rememberId(kept, requestId, appended);
    return appended;
  }

  /**
   * Without `after`, the newest `limit` entries; with it, the first `limit` after it. `more`: some
   * between those given and the last were left out.
   */
  read(
    jobId: string,
    after: number | undefined,
    limit: number,
  ): { entries: KeptEntry[]; last: number; more: boolean } {
    const kept = this.kept(jobId);
    const oldestInMemory = kept.recent[0]?.entry.n ?? kept.last + 1;
    // What memory holds answers it, unless an older entry is asked for.
    const fromMemory =
      after === undefined ? kept.recent.length >= limit || oldestInMemory === 1 : after + 1 >= oldestInMemory;
    const all = fromMemory
      ? kept.recent.map((r) => r.entry)
      : readConversation(path.join(this.jobsDir, jobId)).map(bare);
    const after_ = after ?? 0;
    const wanted = all.filter((e) => e.n > after_);
    const entries = after === undefined ? wanted.slice(-limit) : wanted.slice(0, limit);
    const more = after !== undefined && wanted.length > limit;
    return { entries, last: kept.last, more };
  }

  /** The job was removed (its directory goes with it). */
  forget(jobId: string): void {
    this.jobs.delete(jobId);
  }

  /** The job's state, read from its files the first time (after a restart: its last entries). */
  private kept(jobId: string): Kept {
    let kept = this.jobs.get(jobId);
    if (kept) {
      this.jobs.delete(jobId); // to the end: the most lately touched
      this.jobs.set(jobId, kept);
      return kept;
    }
    const dir = path.join(this.jobsDir, jobId);
    const lines = readConversation(dir) as Line[];
    const size = fs.statSync(path.join(dir, CONVERSATION_FILE), { throwIfNoEntry: false })?.size ?? 0;
    kept = { last: lines.at(-1)?.n ?? 0, recent: [], recentBytes: 0, ids: new Map(), bytes: size };
    for (const line of lines.slice(-RECENT)) this.remember(kept, line, JSON.stringify(line).length + 1);
    for (const line of lines) {
      if (!line.rid) continue;
      const was = kept.ids.get(line.rid);
      rememberId(kept, line.rid, { first: was?.first ?? line.n, last: line.n });
    }
    this.jobs.set(jobId, kept);
    if (this.jobs.size > JOBS_KEPT) this.jobs.delete(this.jobs.keys().next().value!);
    return kept;
  }

  private remember(kept: Kept, line: Line, bytes: number): void {
    kept.recent.push({ entry: bare(line), bytes });
    kept.recentBytes += bytes;
    while (kept.recent.length > RECENT || (kept.recentBytes > RECENT_BYTES && kept.recent.length > 1))
      kept.recentBytes -= kept.recent.shift()!.bytes;
  }
}

function rememberId(kept: Kept, id: string, appended: Appended): void {
  kept.ids.delete(id);
  kept.ids.set(id, appended);
  if (kept.ids.size > REQUEST_IDS) kept.ids.delete(kept.ids.keys().next().value!);
}

/** An entry as it is read: without the store's own `rid`. */
function bare(line: Line): KeptEntry {
  if (line.rid === undefined) return line;
  const { rid: _, ...entry } = line;
  return entry;
}
