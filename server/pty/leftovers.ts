// What is left of a job once its own process has ended (a crash, kill -9, or a stop), ended by the
// pty host: SIGTERM, then SIGKILL after a grace. A job's process is a session leader (node-pty
// calls setsid), so its process group and session are its own; but a program may move its children
// out of both (pi's bash tool starts each command with `detached`, which is setsid; the ACP bridge
// starts its agent so), and an orphan is adopted by init. So the host also marks each run of a job:
// `ROOST_RUN` in its environment, a random value, which every process it starts inherits whatever
// group or session it moves to. What escapes: a process that clears its environment (`env -i`) and
// leaves the job's session too.
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { FIELD, statFields } from "./proc-stat.js";

/** The environment variable that marks every process of one run of a job. */
export const RUN_VARIABLE = "ROOST_RUN";
/** How long what is left has after SIGTERM before SIGKILL. */
export const LEFTOVER_GRACE_MS = 2000;

/** A new run's mark. */
export const newRunMark = (): string => randomBytes(12).toString("hex");

/** A process as /proc names it: its pid and its start time, so that a pid taken again is not it. */
interface Proc {
  pid: number;
  start: number;
}

/** When the process started (clock ticks after boot); 0 when it cannot be read. */
export function startOf(pid: number): number {
  return Number(statFields(pid)?.[FIELD.starttime] ?? 0) || 0;
}

function carriesMark(pid: number, needle: Buffer): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`).includes(needle);
  } catch {
    return false; // another user's, or gone
  }
}

/**
 * The live processes of a job's run whose own process (`leader`, started at `since`) has ended:
 * its process group and session, and whatever carries its mark. None started before it can be one.
 */
export function leftoversOf(leader: number, mark: string, since: number): Proc[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  // The mark is random: found anywhere in an environment, it is this run's.
  const needle = Buffer.from(`${RUN_VARIABLE}=${mark}`);
  const found: Proc[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!(pid > 0) || pid === leader || pid === process.pid) continue;
    const stat = statFields(pid);
    if (!stat || stat[FIELD.state] === "Z") continue;
    const start = Number(stat[FIELD.starttime]);
    if (start < since) continue;
    const own = Number(stat[FIELD.pgrp]) === leader || Number(stat[FIELD.session]) === leader;
    if (own || carriesMark(pid, needle)) found.push({ pid, start });
  }
  return found;
}

const signal = (p: Proc, sig: NodeJS.Signals): void => {
  try {
    process.kill(p.pid, sig);
  } catch {
    // gone already
  }
};

/**
 * Ends what is left of a job: SIGTERM now, SIGKILL after the grace to any that is still the same
 * process. Returns how many there were.
 */
export function endLeftovers(leader: number, mark: string, since: number): number {
  const left = leftoversOf(leader, mark, since);
  if (left.length === 0) return 0;
  for (const p of left) signal(p, "SIGTERM");
  setTimeout(() => {
    for (const p of left) {
      const stat = statFields(p.pid);
      if (stat && stat[FIELD.state] !== "Z" && Number(stat[FIELD.starttime]) === p.start)
        signal(p, "SIGKILL");
    }
  }, LEFTOVER_GRACE_MS);
  return left.length;
}
