// What the pty host reads of a job's processes in /proc (as `ps` and tmux do): whether the job's
// process has ended, and whether it is at work in its terminal though it prints nothing (asked
// before a quiet job counts as idle, so that a follow-up is never typed into a running command:
// `sleep 8` typed into a shell prints nothing for 8 s).
import * as fs from "node:fs";
import { FIELD, statFields } from "./proc-stat.js";

/** The process has ended: a zombie not yet reaped, or gone. */
export function hasEnded(pid: number): boolean {
  const stat = statFields(pid);
  return stat === null || stat[FIELD.state] === "Z";
}

/** The process is on a CPU, or waiting on a disk: it is doing something, not waiting for input. */
const working = (state: string | undefined) => state === "R" || state === "D";

/**
 * True while something runs in the job's terminal's foreground besides the job waiting for input:
 *
 * - another process group holds the terminal (a shell with job control gave it to the command it
 *   runs, `sleep 8` or a pipeline);
 * - a process of the job's own group, other than the job's leader, has the terminal as its input
 *   or output (a program without job control running a child: `python3 -i` in `subprocess.run`,
 *   `sh -c` running its command). Helpers that talk to the job over pipes (an agent's language or
 *   MCP servers, in the job's group too) do not count: they run for the job's whole life;
 * - the leader itself is on a CPU (a shell's builtin loop).
 *
 * `tty`: the job's terminal's slave side (`/dev/pts/N`); false when the job is gone.
 */
export function runsInForeground(
  leader: number,
  tty: string | null,
  wrappers: readonly number[] = [],
): boolean {
  const own = statFields(leader);
  if (!own) return false;
  if (working(own[FIELD.state])) return true;
  const pgrp = Number(own[FIELD.pgrp]);
  const tpgid = Number(own[FIELD.tpgid]);
  if (!(tpgid > 0)) return false; // no terminal in the foreground: nothing can take typed input anyway
  if (tpgid !== pgrp) return groupExists(tpgid);
  return tty !== null && othersOnTerminal([leader, ...wrappers], pgrp, Number(own[FIELD.session]), tty);
}

/**
 * `runsInForeground` for a job, wrapped or launched or not: a sandboxed job's leader is bubblewrap,
 * which waits on its init, which waits on the job's own program, all three on the terminal; a
 * launcher waits on the program it started (see `launched`). The program is the one asked about;
 * the processes above it count as the leader. One not yet started counts as running.
 */
export function jobRunsInForeground(job: {
  pid: number;
  tty: string | null;
  wrappers: number;
  firstInput: number | null;
}): boolean {
  const chain = [job.pid];
  for (let i = 0; i < job.wrappers; i++) {
    // The first child: an init that took in orphans has others after it.
    const [first] = childrenOf(chain[chain.length - 1]!);
    if (first === undefined) return !hasEnded(job.pid);
    chain.push(first);
  }
  launched(chain, job.tty, job.firstInput);
  const program = chain.pop()!;
  return runsInForeground(program, job.tty, chain);
}

/** Launchers in a row, at most (npx, then a package's script, then its binary). */
const MOST_LAUNCHERS = 3;

/**
 * Goes down `chain` (its last the job's program as far as known) through launchers: a program
 * that starts one child on the terminal before anything is typed into the job, and waits on it
 * (Codex's npm package, a node script that runs its native binary; Gemini CLI, which starts itself
 * again). The child is then the job's program, and the launcher counts as a wrapper: else the
 * child, on the terminal in the launcher's group, would look like a command at work for the job's
 * whole life (as `python3 -i` running `subprocess.run` does), and the job would never be idle. A
 * child started after the job was first typed into (`firstInput`, clock ticks after boot) is a
 * command it was given, not its program. (Not by how soon after its parent it started: a loaded
 * machine can take seconds to start a node launcher.)
 */
function launched(chain: number[], tty: string | null, firstInput: number | null): void {
  if (tty === null) return;
  for (let i = 0; i < MOST_LAUNCHERS; i++) {
    const onTerminal = childrenOf(chain[chain.length - 1]!).filter((pid) => usesTerminal(pid, tty));
    if (onTerminal.length !== 1) return;
    const child = onTerminal[0]!;
    const born = startTime(child);
    if (born === null || (firstInput !== null && born >= firstInput)) return;
    chain.push(child);
  }
}

/** Now, in clock ticks after boot (USER_HZ, 100 a second: /proc/uptime's seconds, as starttime counts). */
export function ticksNow(): number {
  try {
    return Math.floor(Number(fs.readFileSync("/proc/uptime", "latin1").split(" ")[0]) * 100);
  } catch {
    return 0;
  }
}

/** When the process started, in clock ticks after boot (proc(5): starttime, field 22). */
function startTime(pid: number): number | null {
  const t = Number(statFields(pid)?.[FIELD.starttime]);
  return Number.isFinite(t) ? t : null;
}

/** A process's children (Linux's /proc/PID/task/PID/children: those of its main thread). */
function childrenOf(pid: number): number[] {
  try {
    const text = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim();
    return text ? text.split(" ").map(Number) : [];
  } catch {
    return [];
  }
}

function groupExists(pgrp: number): boolean {
  try {
    process.kill(-pgrp, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A live process of group `pgrp` (in session `sid`), other than the leader's (`own`), whose input
 * or output is `tty`. Only the session's processes can be of its group: each is read afresh.
 */
function othersOnTerminal(own: readonly number[], pgrp: number, sid: number, tty: string): boolean {
  for (const pid of sessionNow(sid)) {
    if (own.includes(pid)) continue;
    const stat = statFields(pid);
    if (!stat || Number(stat[FIELD.pgrp]) !== pgrp || stat[FIELD.state] === "Z") continue;
    if (usesTerminal(pid, tty)) return true;
  }
  return false;
}

/**
 * Each process's session as read (pid → session id), and when /proc was last listed. A session
 * is fixed for a process's life but for its own setsid, which takes it out of the session (and
 * the session's processes are read afresh every time: seen then); a process enters one only as it
 * is forked, under a new pid, read as new. So one read per process, not one per process per job
 * asked about: that was a thousand jobs' quiet checks a million reads of /proc, the pty host's
 * busiest work as they started.
 */
const sessions = new Map<number, number>();
let listedAt = 0;
/** A pid gone and given to a new process between two listings would keep its old session: the
 * map is read anew when the listings are further apart than a wrap of the pids could ever be. */
const FRESH_MS = 1000;

/** The processes of session `sid` now (its own read afresh by the caller). */
function sessionNow(sid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const now = Date.now();
  if (now - listedAt > FRESH_MS) sessions.clear();
  listedAt = now;
  const listed = new Set<number>();
  const members: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!(pid > 0)) continue;
    listed.add(pid);
    let session = sessions.get(pid);
    if (session === undefined) {
      const stat = statFields(pid);
      if (!stat) continue;
      session = Number(stat[FIELD.session]);
      sessions.set(pid, session);
    }
    if (session === sid) members.push(pid);
  }
  for (const pid of sessions.keys()) if (!listed.has(pid)) sessions.delete(pid);
  return members;
}

function usesTerminal(pid: number, tty: string): boolean {
  for (const fd of [0, 1]) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === tty) return true;
    } catch {
      // closed, or gone meanwhile
    }
  }
  return false;
}
