/**
 * A queue entry's check (docs/worktrees.md, "The merge queue"): `sh -c CHECK` in the scratch
 * worktree, in a process group of its own so that a timeout (or the daemon's shutdown) ends all it
 * started. Its whole output goes to a file; its last 8 KiB are kept for the entry.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { QUEUE_OUTPUT_BYTES } from "../../../sdk/ts/protocol/index.js";

export interface CheckEnd {
  /** Its exit code; null when a signal ended it. */
  code: number | null;
  timedOut: boolean;
  /** Ended by `kill` (the daemon stopping): not the check's verdict. */
  killed: boolean;
  output: string;
}

export interface RunningCheck {
  pid: number | null;
  done: Promise<CheckEnd>;
  kill(): void;
}

/** git's own variables from the daemon's environment would point the check's git elsewhere. */
const NOT_PASSED: ReadonlySet<string> = new Set([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_PREFIX",
]);

export function runCheck(opts: {
  command: string;
  cwd: string;
  timeoutMs: number;
  logFile: string;
  /** Called with the tail each time output comes (the caller pushes it at most once a second). */
  onOutput: (tail: string) => void;
}): RunningCheck {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!NOT_PASSED.has(k)) env[k] = v;
  const log = fs.openSync(opts.logFile, "w", 0o600);
  let tail = Buffer.alloc(0);
  const child = spawn("sh", ["-c", opts.command], {
    cwd: opts.cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const take = (chunk: Buffer) => {
    fs.writeSync(log, chunk);
    tail = Buffer.concat([tail, chunk]);
    if (tail.length > QUEUE_OUTPUT_BYTES) tail = tail.subarray(tail.length - QUEUE_OUTPUT_BYTES);
    opts.onOutput(tailText(tail));
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  let timedOut = false;
  let killed = false;
  const group = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    group("SIGKILL");
  }, opts.timeoutMs);
  const done = new Promise<CheckEnd>((resolve) => {
    const finish = (code: number | null) => {
      clearTimeout(timer);
      group("SIGKILL"); // what it left running in the background is its own, and goes with it
      fs.closeSync(log);
      resolve({ code, timedOut, killed, output: tailText(tail) });
    };
    child.on("error", (err) => {
      take(Buffer.from(`roost: could not run sh: ${err.message}\n`));
      finish(127);
    });
    child.on("close", (code) => finish(code));
  });
  return {
    pid: child.pid ?? null,
    done,
    kill: () => {
      killed = true;
      group("SIGKILL");
    },
  };
}

/** The tail as text: a character cut at its start is dropped, not shown as a replacement. */
function tailText(tail: Buffer): string {
  let start = 0;
  while (start < tail.length && start < 4 && (tail[start]! & 0xc0) === 0x80) start++;
  return tail.subarray(start).toString("utf8");
}

/**
 * A check's process group left running by a daemon that died (kill -9) while it ran: ended if its
 * leader still runs in that entry's scratch worktree (its working directory says it is the same
 * process, not another that took its pid since).
 */
export function endLeftover(pid: number | null, scratch: string): void {
  if (!pid) return;
  try {
    const cwd = fs.readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, "");
    if (cwd !== scratch && !cwd.startsWith(`${scratch}/`)) return;
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone, or not ours to see
  }
}
