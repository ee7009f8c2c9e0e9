// What each job's processes use of the machine, read by the pty host in one pass over /proc for
// all its jobs (docs/budgets.md, "Resources"): CPU (seconds, and percent over the last pass), RSS,
// PSS (every PSS_EVERY passes: smaps_rollup is the dear part) and how many processes.
//
// A job's processes are its session: each job is started as a session leader (node-pty calls
// setsid), and a shell puts each command in a process group of its own in that same session, so
// the process group alone would miss them. A program that starts a child in a session of its own
// (pi's bash tool, the ACP bridge's agent) is followed too: a session whose leader's parent is one
// of the job's processes is the job's. What escapes: an orphan adopted by init in a new session.
import * as fs from "node:fs";
import { FIELD, fieldsOf, readSmall } from "./proc-stat.js";

/** How often the host takes the pass, unless ROOST_RESOURCES_MS says otherwise (tests). */
export const RESOURCES_INTERVAL_MS = 5000;
/** PSS is read every this many passes (30 s at the default interval); RSS every pass. */
export const PSS_EVERY = 6;
/** USER_HZ: /proc's clock ticks a second, 100 on every Linux roost runs on (sysconf(_SC_CLK_TCK)). */
const TICKS_PER_SECOND = 100;
/** Linux's page size on x86-64 and arm64 (4 KiB pages); stat's rss counts pages. */
const PAGE_BYTES = 4096;

/** The fields of /proc/<pid>/stat a pass needs. */
export interface ProcStat {
  pid: number;
  ppid: number;
  /** Its session id (field 6). */
  session: number;
  /** utime + stime, in clock ticks. */
  ticks: number;
  /** Resident pages. */
  rssPages: number;
  zombie: boolean;
}

/**
 * One line of /proc/<pid>/stat read, or null when it is not one (proc-stat.ts reads the fields).
 */
export function parseStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const f = fieldsOf(text);
  if (open < 1 || !f || f.length <= FIELD.rss) return null;
  const n = (i: number) => Number(f[i]);
  const stat = {
    pid: Number(text.slice(0, open - 1)),
    ppid: n(FIELD.ppid),
    session: n(FIELD.session),
    ticks: n(FIELD.utime) + n(FIELD.stime),
    rssPages: n(FIELD.rss),
    zombie: f[FIELD.state] === "Z",
  };
  return Number.isFinite(stat.pid) && Number.isFinite(stat.ticks) && Number.isFinite(stat.rssPages)
    ? stat
    : null;
}

/** The `Pss:` line of /proc/<pid>/smaps_rollup, in bytes; null when it has none. */
export function parsePss(text: string): number | null {
  const m = /^Pss:\s+(\d+) kB$/m.exec(text);
  return m ? Number(m[1]) * 1024 : null;
}

/** What a job's processes use, as one pass read it. */
export interface JobResources {
  jobId: string;
  /** Its session leader, the job's process: the run these are of. */
  pid: number;
  /** Percent of one core over the time since the pass before (100 = one core busy); 0 on a first pass. */
  cpu: number;
  /** CPU seconds of its live processes, user and system. */
  cpuSeconds: number;
  /** Bytes resident, all its processes summed (shared pages counted in each). */
  rss: number;
  /** Proportional set size, bytes (shared pages split between their sharers); null on a pass without it. */
  pss: number | null;
  procs: number;
}

/** A job the pass looks for: its session leader's pid. */
export interface JobLeader {
  jobId: string;
  pid: number;
}

/** Reads every process's stat once; null where one is gone meanwhile (or not a process). */
export function readAllStats(): ProcStat[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue; // not a pid
    const text = readSmall(`/proc/${entry}/stat`);
    if (text === null) continue; // ended meanwhile
    const stat = parseStat(text);
    if (stat && !stat.zombie) out.push(stat);
  }
  return out;
}

function readPss(pid: number): number {
  // smaps_rollup is about 1 kB: the buffer holds it whole. 0: ended meanwhile, or a kernel thread.
  const text = readSmall(`/proc/${pid}/smaps_rollup`);
  return text === null ? 0 : (parsePss(text) ?? 0);
}

/**
 * Which job each process is of: its session's, or, for a session whose leader is a child of one of
 * a job's processes, that job's (followed up a few sessions). Pure: the stats and leaders in.
 */
export function groupByJob(
  stats: readonly ProcStat[],
  leaders: readonly JobLeader[],
): Map<string, ProcStat[]> {
  const bySession = new Map<number, string>();
  for (const l of leaders) bySession.set(l.pid, l.jobId);
  const byPid = new Map<number, ProcStat>();
  for (const s of stats) byPid.set(s.pid, s);
  const sessionOwner = new Map<number, string | null>();
  const ownerOf = (session: number, depth: number): string | null => {
    const known = bySession.get(session) ?? sessionOwner.get(session);
    if (known !== undefined) return known;
    let owner: string | null = null;
    const leader = byPid.get(session);
    const parent = leader ? byPid.get(leader.ppid) : undefined;
    if (parent && parent.session !== session && depth < 4) owner = ownerOf(parent.session, depth + 1);
    sessionOwner.set(session, owner);
    return owner;
  };
  const groups = new Map<string, ProcStat[]>();
  for (const s of stats) {
    const jobId = ownerOf(s.session, 0);
    if (jobId === null) continue;
    const group = groups.get(jobId);
    if (group) group.push(s);
    else groups.set(jobId, [s]);
  }
  return groups;
}

/** The pass, with what it needs of the one before: each job's CPU ticks and when they were read. */
export class ResourcePass {
  private last = new Map<string, { ticks: number; at: number }>();
  private passes = 0;

  /** One pass over /proc for `leaders`; `pss`: read PSS this time (default: every PSS_EVERY passes). */
  take(leaders: readonly JobLeader[], pss = this.passes % PSS_EVERY === 0): JobResources[] {
    this.passes++;
    const now = performance.now();
    const groups = groupByJob(readAllStats(), leaders);
    const next = new Map<string, { ticks: number; at: number }>();
    const out: JobResources[] = [];
    for (const { jobId, pid } of leaders) {
      const procs = groups.get(jobId) ?? [];
      let ticks = 0;
      let pages = 0;
      let pssBytes = pss ? 0 : null;
      for (const p of procs) {
        ticks += p.ticks;
        pages += p.rssPages;
        if (pssBytes !== null) pssBytes += readPss(p.pid);
      }
      const before = this.last.get(jobId);
      next.set(jobId, { ticks, at: now });
      // A process that ended takes its ticks with it: the sum may go down; that pass says 0.
      const spent = before ? Math.max(0, ticks - before.ticks) / TICKS_PER_SECOND : 0;
      const wall = before ? (now - before.at) / 1000 : 0;
      out.push({
        jobId,
        pid,
        cpu: wall > 0 ? Math.round((spent / wall) * 1000) / 10 : 0,
        cpuSeconds: Math.round((ticks / TICKS_PER_SECOND) * 100) / 100,
        rss: pages * PAGE_BYTES,
        pss: pssBytes,
        procs: procs.length,
      });
    }
    this.last = next;
    return out;
  }
}
