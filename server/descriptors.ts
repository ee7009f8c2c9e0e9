/**
 * The process's limit on open files (descriptors): read, and raised to the hard limit at start.
 * Every connection, on the socket or over HTTP, is a descriptor; so are the store's files and
 * the pty host's connection. The HTTP face's caps are computed from this (http/connections.ts).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";

export interface FileLimit {
  soft: number;
  hard: number;
}

/** When the limit cannot be read at all: the usual soft default, and a safe guess to size caps by. */
const UNKNOWN: FileLimit = { soft: 1024, hard: 1024 };

/** The limit now: /proc on Linux, the shell's `ulimit` elsewhere, else a cautious guess. */
export function fileLimit(): FileLimit {
  return fromProc() ?? fromShell() ?? UNKNOWN;
}

/**
 * Raises the soft limit to the hard one where they differ. Node has no setrlimit; util-linux's
 * prlimit sets another process's, ours included. Where it is missing (not Linux), nothing is
 * said: node itself raises the soft limit at start on most systems, and the caps are computed
 * from what the limit is afterwards, whatever it is.
 */
export function raiseFileLimit(): void {
  const { soft, hard } = fileLimit();
  if (soft >= hard || !Number.isFinite(hard)) return;
  try {
    execFileSync("prlimit", ["--pid", String(process.pid), `--nofile=${hard}:${hard}`], {
      stdio: "ignore",
      timeout: 5000,
    });
  } catch {
    // no prlimit, or not allowed: the caps are computed from the limit as it stands
  }
}

/** `Max open files  20000  20000  files` in /proc/self/limits. */
export function parseProcLimits(text: string): FileLimit | null {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  return m ? { soft: count(m[1]!), hard: count(m[2]!) } : null;
}

function fromProc(): FileLimit | null {
  try {
    return parseProcLimits(fs.readFileSync("/proc/self/limits", "utf8"));
  } catch {
    return null;
  }
}

/** A child inherits our limits: its `ulimit -Sn` and `-Hn` are ours. */
function fromShell(): FileLimit | null {
  try {
    const out = execFileSync("/bin/sh", ["-c", "ulimit -Sn; ulimit -Hn"], {
      encoding: "utf8",
      timeout: 5000,
    });
    const m = /^(\d+|unlimited)\s+(\d+|unlimited)$/.exec(out.trim());
    return m ? { soft: count(m[1]!), hard: count(m[2]!) } : null;
  } catch {
    return null;
  }
}

const count = (s: string) => (s === "unlimited" ? Number.POSITIVE_INFINITY : Number(s));
