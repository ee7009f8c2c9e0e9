/**
 * A job's conversation on disk (docs/protocol.md, "The conversation"): JSON lines in its
 * directory, `conversation.jsonl`, the older part in `conversation.1.jsonl` once the newest passed
 * its bound (as the terminal's transcript is kept: docs/terminals.md). The daemon's store appends
 * (server/store/conversations.ts); this reads, for it and for `roost log`, which reads the files
 * itself so that it works once the job has ended and while roost is down.
 */
import path from "node:path";
import type { KeptEntry } from "../sdk/ts/protocol/index.js";
import { readOwn } from "./home.js";

export const CONVERSATION_FILE = "conversation.jsonl";
export const CONVERSATION_OLDER = "conversation.1.jsonl";

/** The lines of one file that are entries; a line cut short (a crash mid-write) is passed over. */
export function entriesOf(text: string): KeptEntry[] {
  const out: KeptEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as KeptEntry;
      if (e && typeof e === "object" && Number.isInteger(e.n) && typeof e.kind === "string") out.push(e);
    } catch {
      // a torn line: what follows it is whole again
    }
  }
  return out;
}

/**
 * The job's conversation, oldest first (both files; empty when it has none). The newest is read
 * first: should the store rotate in between, the older file then holds what was read as the
 * newest, and each entry is kept once, in order of `n`.
 */
export function readConversation(dir: string): KeptEntry[] {
  const newest = entriesOf(readOwn(path.join(dir, CONVERSATION_FILE)) ?? "");
  const older = entriesOf(readOwn(path.join(dir, CONVERSATION_OLDER)) ?? "");
  const first = newest[0]?.n ?? Number.POSITIVE_INFINITY;
  return [...older.filter((e) => e.n < first), ...newest];
}
