// What the pty host reads of a job's processes in /proc (as `ps` and tmux do): whether the job's
// process has ended, and whether it is at work in its terminal though it prints nothing (asked
// before a quiet job counts as idle, so that a follow-up is never typed into a running command:
// `sleep 8` typed into a shell prints nothing for 8 s).
import * as fs from "node:fs";

/** The fields of /proc/<pid>/stat after the command's name, or null when the process is gone. */
function statOf(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

// Indexes in statOf's fields (proc(5): state is field 3, pgrp 5, tpgid 8, starttime 22).
const STATE = 0;
const PGRP = 2;
const TPGID = 5;
const STARTTIME = 19;

/** The process has ended: a zombie not yet reaped, or gone. */
export function hasEnded(pid: number): boolean {
  const stat = statOf(pid);
  return stat === null || stat[STATE] === "Z";
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
  const own = statOf(leader);
  if (!own) return false;
  if (working(own[STATE])) return true;
  const pgrp = Number(own[PGRP]);
  const tpgid = Number(own[TPGID]);
  if (!(tpgid > 0)) return false; // no terminal in the foreground: nothing can take typed input anyway
  if (tpgid !== pgrp) return groupExists(tpgid);
  return tty !== null && othersOnTerminal([leader, ...wrappers], pgrp, tty);
}

/**
 * `runsInForeground` for a job, wrapped or launched or not: a sandboxed job's leader is bubblewrap,
 * which waits on its init, which waits on the job's own program, all three on the terminal; a
 * launcher waits on the program it started (see `launched`). The program is the one asked about;
 * the processes above it count as the leader. One not yet started counts as running.
 *
 * `job.chain` keeps the processes from the leader down to the program once found: found at the
 * job's first quiet spell, before anything is typed into it, so that a command it is given later
 * is never taken for its program. Looked for again once its program has ended.
 */
export function jobRunsInForeground(job: {
  pid: number;
  tty: string | null;
  wrappers: number;
  chain: number[] | null;
}): boolean {
  if (job.chain && job.chain.length > 1 && hasEnded(job.chain[job.chain.length - 1]!)) job.chain = null;
  job.chain ??= programChain(job);
  if (!job.chain) return !hasEnded(job.pid);
  const program = job.chain[job.chain.length - 1]!;
  return runsInForeground(program, job.tty, job.chain.slice(0, -1));
}

/** The job's processes from its leader down to its program; null while a wrapper's child is yet to start. */
function programChain(job: { pid: number; tty: string | null; wrappers: number }): number[] | null {
  const chain = [job.pid];
  for (let i = 0; i < job.wrappers; i++) {
    // The first child: an init that took in orphans has others after it.
    const [first] = childrenOf(chain[chain.length - 1]!);
    if (first === undefined) return null;
    chain.push(first);
  }
  launched(chain, job.tty);
  return chain;
}

/** How soon after its launcher a program starts, at most, in clock ticks (USER_HZ: 100 a second). */
const LAUNCH_TICKS = 200;
/** Launchers in a row, at most (npx, then a package's script, then its binary). */
const MOST_LAUNCHERS = 3;

/**
 * Goes down `chain` (its last the job's program as far as known) through launchers: a program
 * that starts one child on the terminal as it starts and waits on it for its whole life (Codex's
 * npm package, a node script that runs its native binary; Gemini CLI, which starts itself again).
 * The child is then the job's program, and the launcher counts as a wrapper: else the child, on
 * the terminal in the launcher's group, would look like a command at work for the job's whole
 * life (as `python3 -i` running `subprocess.run` does), and the job would never be idle. A child
 * started later than LAUNCH_TICKS after its parent is a command the program runs, not its program.
 */
function launched(chain: number[], tty: string | null): void {
  if (tty === null) return;
  for (let i = 0; i < MOST_LAUNCHERS; i++) {
    const parent = chain[chain.length - 1]!;
    const onTerminal = childrenOf(parent).filter((pid) => usesTerminal(pid, tty));
    if (onTerminal.length !== 1) return;
    const child = onTerminal[0]!;
    const [born, parentBorn] = [startTime(child), startTime(parent)];
    if (born === null || parentBorn === null || born - parentBorn > LAUNCH_TICKS) return;
    chain.push(child);
  }
}

/** When the process started, in clock ticks after boot (proc(5): starttime, field 22). */
function startTime(pid: number): number | null {
  const t = Number(statOf(pid)?.[STARTTIME]);
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

/** A live process of group `pgrp`, other than the leader's (`own`), whose input or output is `tty`. */
function othersOnTerminal(own: readonly number[], pgrp: number, tty: string): boolean {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return false;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!(pid > 0) || own.includes(pid)) continue;
    const stat = statOf(pid);
    if (!stat || Number(stat[PGRP]) !== pgrp || stat[STATE] === "Z") continue;
    if (usesTerminal(pid, tty)) return true;
  }
  return false;
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
