// /proc/<pid>/stat as the pty host reads it (proc(5)), for the quiet checks (processes.ts), what is
// left of a job (leftovers.ts) and the resources pass (resources.ts): one reader, one parser.
import * as fs from "node:fs";

/**
 * Where each field is in the fields after the command's name (statFields): those start at proc(5)'s
 * field 3, state; field N is at N - 3.
 */
export const FIELD = {
  state: 0,
  ppid: 1,
  pgrp: 2,
  session: 3,
  tpgid: 5,
  utime: 11,
  stime: 12,
  starttime: 19,
  rss: 21,
} as const;

/** One buffer for every small read: a stat line is under 400 bytes. */
const BUF = Buffer.alloc(4096);

/**
 * A small /proc file's text, or null when it cannot be read. open, read, close into one buffer:
 * readFileSync also stats the file and allocates for each, which made a pass over 1,000 processes
 * about twice as dear (docs/budgets.md, "Resources").
 */
export function readSmall(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    return null; // ended meanwhile, or not ours to read
  }
  try {
    const n = fs.readSync(fd, BUF, 0, BUF.length, 0);
    return BUF.toString("latin1", 0, n);
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A stat line's fields after the command's name, or null when it has none. The name is in
 * parentheses and may hold spaces and parentheses itself: the fields are those after the last ")".
 */
export function fieldsOf(text: string): string[] | null {
  const close = text.lastIndexOf(")");
  return close < 0 ? null : text.slice(close + 2).split(" ");
}

/** The fields of /proc/<pid>/stat after the command's name, or null when the process is gone. */
export function statFields(pid: number): string[] | null {
  const text = readSmall(`/proc/${pid}/stat`);
  return text === null ? null : fieldsOf(text);
}
