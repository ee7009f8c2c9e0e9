/**
 * The processes tests and the benchmark start, watched and killed by pid: one copy for both
 * (`bench/` compiles this file with its own). A daemon's pty host, and the jobs it holds, outlive
 * the daemon by design, so whoever started one kills it.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port free right now on 127.0.0.1 (for a server that must come back on the same one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A wait's deadline, fair to a machine that stalls: a check always comes after the last sleep (so
 * a wait whose process was held past its deadline still looks once at what arrived meanwhile), and
 * a timeout says how long this process itself was held, to tell a slow daemon from a stalled test.
 */
export class Deadline {
  private readonly end: number;
  private last = Date.now();
  private longest = 0;

  constructor(ms: number) {
    this.end = this.last + ms;
  }

  /** Called once per check: false once the deadline has passed (that check was the last). */
  more(): boolean {
    const now = Date.now();
    this.longest = Math.max(this.longest, now - this.last);
    this.last = now;
    return now < this.end;
  }

  get left(): number {
    return Math.max(0, this.end - Date.now());
  }

  /** "timed out waiting for …", with the longest this process was held between two checks. */
  timedOut(what: string, last?: string): Error {
    const held = this.longest > 1000 ? `; this test's process was held up to ${this.longest} ms at once` : "";
    return new Error(`timed out waiting for ${what}${last === undefined ? "" : ` (last: ${last})`}${held}`);
  }
}

/** Lets I/O that arrived run (a socket's data is read after timers, before `setImmediate`). */
export const ioTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Waits until `pick` finds something among what a connection received (the socket client's and
 * the WebSocket's one wait): a look after each `pause`, and one more past the deadline, once the
 * I/O that came while this process was held has been read. `gone` says the connection closed
 * (nothing more can come), `last` what had come, for the timeout's message.
 */
export async function arrival<T>(
  pick: () => T | undefined,
  what: string,
  ms: number,
  how: { pause: (left: number) => Promise<unknown>; gone: () => string | null; last?: () => string },
): Promise<T> {
  const deadline = new Deadline(ms);
  for (;;) {
    const more = deadline.more();
    if (!more) await ioTurn();
    const found = pick();
    if (found !== undefined) return found;
    const gone = how.gone();
    if (gone !== null) throw new Error(`${gone} while waiting for ${what}`);
    if (!more) throw deadline.timedOut(what, how.last?.());
    await how.pause(deadline.left);
  }
}

/** The pace of `until`'s looks: the first soon after, then further apart, up to the most. */
const FIRST_LOOK_MS = 10;
const MOST_BETWEEN_LOOKS_MS = 50;

/**
 * Polls until `check` returns a truthy value (or throws after `ms`, saying what it waited for).
 * Its looks go from 10 ms apart to 50: a look is often an op (a row, the feed) or a walk of /proc,
 * which the daemon and this process pay for, and most waits are for seconds.
 */
export async function until<T>(
  what: string,
  check: () => T | Promise<T>,
  ms = 15000,
): Promise<NonNullable<T>> {
  const deadline = new Deadline(ms);
  let last: unknown;
  let pause = FIRST_LOOK_MS;
  for (;;) {
    const more = deadline.more();
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (!more) break;
    await sleep(pause);
    pause = Math.min(pause * 1.5, MOST_BETWEEN_LOOKS_MS);
  }
  throw deadline.timedOut(what, last instanceof Error ? last.message : JSON.stringify(last));
}

/**
 * A process's children, from /proc (each of its threads' `children`): no `ps` to start, which a
 * wait that looks every few milliseconds would start hundreds of times.
 */
export function childPids(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone
  }
  const out = new Set<number>();
  for (const task of tasks) {
    let list = "";
    try {
      list = fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8");
    } catch {} // the thread ended meanwhile
    for (const child of list.split(" ")) if (Number(child) > 0) out.add(Number(child));
  }
  return [...out];
}

/** Every process under `pid`: its children, theirs, and so on. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of childPids(queue.shift()!)) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Running: a zombie (killed, not yet reaped by its parent) is gone for our purposes. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Sends a signal; false when there is no such process. */
export function killQuietly(pid: number, signal: NodeJS.Signals = "SIGKILL"): boolean {
  if (!pid) return false; // 0 would be this process group
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** A process's environment, from /proc/<pid>/environ. */
export function procEnv(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** The pty host of a roost home, by the pid file it keeps there. */
export function ptyHostPid(home: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(home, "pty.pid"), "utf8").trim()) || null;
  } catch {
    return null;
  }
}

/**
 * The jobs are the pty host's children, each a session leader: each job's process group, then
 * everything under the jobs that left it (a process group or session of its own: an example
 * agent's steps), each by its group and by itself. The tree is taken before anything is killed:
 * a process whose parent dies is handed to init, and would no longer be found under the job.
 */
export function killJobsOf(hostPid: number): void {
  const jobs = childPids(hostPid);
  const under = jobs.flatMap((job) => descendants(job));
  for (const pid of jobs) killQuietly(-pid) || killQuietly(pid);
  for (const pid of under) {
    killQuietly(-pid);
    killQuietly(pid);
  }
}

/** Kills a home's pty host and every job it holds. */
export function killPtyHost(home: string): void {
  const host = ptyHostPid(home);
  if (!host) return;
  killJobsOf(host);
  killQuietly(host);
}
