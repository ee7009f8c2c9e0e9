/**
 * Starting roost's own background processes, the one way: `roost start` starts the daemon
 * (cli/commands/start.ts), the daemon starts its pty host (pty/client.ts). Each runs node on a
 * script of roost's, in a session of its own (it outlives its starter and the starter's terminal),
 * its output appended to a log in the home, opened as roost's own file (home.ts); the starter
 * then waits until it answers.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { openOwn } from "./home.js";

export interface Detached {
  child: ChildProcess;
  /** The log's size before the child wrote to it: where this start's lines begin. */
  logFrom: number;
}

/** `node script ...args`, detached, its stdout and stderr appended to `log`. */
export function startDetached(
  script: string,
  args: string[],
  opts: { log: string; cwd: string; env?: NodeJS.ProcessEnv },
): Detached {
  const { O_APPEND, O_CREAT, O_WRONLY } = fs.constants;
  const logFd = openOwn(opts.log, O_APPEND | O_CREAT | O_WRONLY);
  try {
    const logFrom = fs.fstatSync(logFd).size;
    const child = spawn(process.execPath, [script, ...args], {
      detached: true,
      stdio: ["ignore", logFd, logFd],
      cwd: opts.cwd,
      ...(opts.env ? { env: opts.env } : {}),
    });
    return { child, logFrom };
  } finally {
    fs.closeSync(logFd); // the child has its own copy
  }
}

/**
 * Asks `answer` every `everyMs` until it gives something, for `ms` at most; null once the time is
 * up or `gone()` says there is no use waiting (the child exited).
 */
export async function whenAnswers<T>(
  answer: () => Promise<T | null | false>,
  opts: { ms: number; everyMs: number; gone?: () => boolean },
): Promise<T | null> {
  const deadline = Date.now() + opts.ms;
  while (!opts.gone?.() && Date.now() < deadline) {
    const answered = await answer();
    if (answered) return answered;
    await new Promise((r) => setTimeout(r, opts.everyMs));
  }
  return null;
}
