// The pty host's job table: each job's pseudo-terminal, the headless screen and transcript its
// output goes to, and its exit (kept, and written to jobs/<jobId>/exit.json, until forgotten).
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { type IPty, spawn as ptySpawn } from "@lydell/node-pty";
import { waitForDrainOnDestroy } from "./late-output.js";
import { endLeftovers, newRunMark, RUN_VARIABLE, startOf } from "./leftovers.js";
import { log } from "./log.js";
import { jobIdOf, type Msg } from "./params.js";
import { hasEnded, jobRunsInForeground, ticksNow } from "./processes.js";
import { Screen } from "./screen.js";
import { commandOf, spawnSpecOf } from "./spawn-spec.js";
import { holdSlave, ptsNameOf, writeExitFile } from "./terminal-files.js";
import { Transcript } from "./transcript.js";
import { TypedInput } from "./typed-input.js";
import { type ExitInfo, type ListResult, type ScreenState, TAIL_LIMIT } from "./wire.js";

/**
 * Written into a job's terminal (through the host's own slave fd) once its process has ended: when
 * it comes back out of the master, everything the job printed before it has been read. An APC
 * string (which terminals ignore) with a random part, so that no job prints it by chance.
 */
const DRAINED = `\x1b_roost-drained-${randomBytes(8).toString("hex")}\x1b\\`;

export interface Job {
  readonly jobId: string;
  readonly pid: number;
  pty: IPty | null; // null once exited
  /** What is typed into it, written as it takes it (typed-input.ts); null once exited. */
  input: TypedInput | null;
  tail: string;
  /** Output chunks so far: the last one's seq. */
  seq: number;
  exit: ExitInfo | null;
  readonly screen: Screen;
  transcript: Transcript | null; // null once exited
  /** Its terminal's slave side (`/dev/pts/N`), as node-pty names it. */
  readonly tty: string | null;
  /** How many processes wrap the job's own (a sandbox's bubblewrap and its init: 2); 0 for none. */
  readonly wrappers: number;
  /** When it was first typed into, in clock ticks after boot (processes.ts); null before. */
  firstInput: number | null;
  /** The host's own fd of the job's slave side (see holdSlave); null once let go. */
  slave: number | null;
  /** Its process has ended and its terminal is being read to the end (see drain); null before. */
  drain: Drain | null;
  /** This run's mark (`ROOST_RUN`), and when its process started: what is left of it at its end (leftovers.ts). */
  readonly mark: string;
  readonly startedAt: number;
}

/** A job whose process ended: the tail of its output that may be the start of DRAINED, held back. */
interface Drain {
  held: string;
  /** DRAINED came back (or could not be written): what comes now passes as it is. */
  done: boolean;
}

/** What the table tells the host: it passes them on to the connections. */
export interface JobEvents {
  output(job: Job, data: string, seq: number): void;
  /** The job's screen changed or turned quiet; its parse is caught up right now. */
  screen(job: Job): void;
  exit(job: Job, exit: ExitInfo): void;
}

/** A job's screen as text; exact when read inside its screen's whenParsed. */
export function screenState(job: Job): ScreenState {
  return { jobId: job.jobId, ...job.screen.text(), busy: job.screen.busy, at: new Date().toISOString() };
}

/**
 * A job's screen when asked for it (the `screen` op): a quiet one is looked at again, since what
 * it runs may have started without a word (the screen then stays busy and tells when it is not).
 */
export function askedScreenState(job: Job): ScreenState {
  if (!job.screen.busy && job.pty && jobRunsInForeground(job)) job.screen.wake();
  return screenState(job);
}

/** How long a job that has printed nothing yet counts as starting, at most: 5 s, in clock ticks. */
const SILENT_START_TICKS = 500;

/**
 * A job that has printed nothing since it started, a few seconds at most, is still starting, not
 * idle: a launcher (processes.ts, `launched`) may not have started its program yet on a loaded
 * machine, and what is typed before it has is taken for a command the job was given.
 */
function silentStart(job: Job): boolean {
  return job.seq === 0 && ticksNow() - job.startedAt < SILENT_START_TICKS;
}

export class Jobs {
  private readonly jobs = new Map<string, Job>(); // live jobs, and exits the daemon has not forgotten yet
  /** Listening to SIGCHLD (see watchExits), and a check of the jobs' ends it asked for, pending. */
  private watchingExits = false;
  private exitCheck: NodeJS.Immediate | null = null;

  constructor(
    private readonly home: string,
    private readonly events: JobEvents,
  ) {}

  all(): Job[] {
    return [...this.jobs.values()];
  }

  anyLive(): boolean {
    return this.all().some((j) => j.pty);
  }

  known(m: Msg): Job {
    const job = this.jobs.get(jobIdOf(m));
    if (!job) throw new Error(`no such job: ${String(m.jobId)}`);
    return job;
  }

  live(m: Msg): Job & { pty: IPty; input: TypedInput } {
    const job = this.known(m);
    if (!job.pty || !job.input) throw new Error(`job has exited: ${job.jobId}`);
    return job as Job & { pty: IPty; input: TypedInput };
  }

  list(): ListResult {
    const all = this.all();
    return {
      live: all.filter((j) => j.pty).map((j) => ({ jobId: j.jobId, pid: j.pid })),
      exited: all.flatMap((j) => (j.exit ? [{ jobId: j.jobId, ...j.exit }] : [])),
    };
  }

  spawn(m: Msg): { pid: number } {
    const spec = spawnSpecOf(m);
    const { jobId, cwd, cols, rows } = spec;
    const earlier = this.jobs.get(jobId);
    if (earlier?.pty) throw new Error(`job already live: ${jobId}`);
    const resolved = commandOf(spec);

    const screen = new Screen({
      cols,
      rows,
      scrollback: spec.scrollback,
      quietMs: spec.quietMs,
      running: () => silentStart(job) || jobRunsInForeground(job),
      onChange: () => this.events.screen(job),
      onFlow: (paused) => this.flow(job, paused),
    });
    let p: IPty;
    const mark = newRunMark();
    const env = { ...spec.env, [RUN_VARIABLE]: mark };
    try {
      p = ptySpawn(resolved, spec.args, { name: "xterm-256color", cwd, cols, rows, env });
    } catch (err) {
      screen.dispose();
      throw err;
    }
    const transcript = this.openTranscript(jobId, spec.transcriptBytes);
    const job: Job = {
      jobId,
      pid: p.pid,
      pty: p,
      input: new TypedInput(p),
      tail: "",
      seq: 0,
      exit: null,
      screen,
      transcript,
      tty: ptsNameOf(p),
      wrappers: spec.wrappers,
      firstInput: null,
      slave: holdSlave(p),
      drain: null,
      mark,
      startedAt: startOf(p.pid),
    };
    earlier?.screen.dispose();
    this.jobs.set(jobId, job); // replaces an unforgotten exit of an earlier run of this job
    this.watchExits();
    this.follow(job, p);
    screen.wake(); // busy until its first quiet spell, even if it never prints
    log(`spawned ${jobId} pid ${p.pid}: ${resolved}`);
    return { pid: p.pid };
  }

  /** The job's transcript; none (said in the log) when it cannot be opened: the job runs anyway. */
  private openTranscript(jobId: string, bytes: number): Transcript | null {
    try {
      return new Transcript(path.join(this.home, "jobs", jobId), bytes, log);
    } catch (err) {
      log(`no transcript for ${jobId}: ${String(err)}`);
      return null;
    }
  }

  /** The job's output to its screen, transcript and viewers; its exit recorded. */
  private follow(job: Job, p: IPty): void {
    waitForDrainOnDestroy(
      p,
      () => job.drain?.done === true,
      () => {
        if (!job.drain) this.drain(job, p);
      },
    );
    // Always read: a pty nobody drains fills up and blocks the job.
    p.onData((data) => {
      const out = job.drain && !job.drain.done ? this.drained(job, job.drain, data) : data;
      if (out) this.output(job, out);
    });
    p.onExit(({ exitCode, signal }) => {
      if (job.drain?.held) this.output(job, job.drain.held);
      this.letGoOfSlave(job);
      this.onExit(job, { exitCode, signal: signal || null, at: new Date().toISOString() });
    });
  }

  private output(job: Job, data: string): void {
    const seq = ++job.seq;
    job.tail += data;
    if (job.tail.length > 2 * TAIL_LIMIT) job.tail = job.tail.slice(-TAIL_LIMIT);
    job.screen.write(data);
    job.transcript?.append(data);
    this.events.output(job, data, seq);
  }

  // ---- the end of a job's output
  //
  // node-pty says a job exited only once its terminal's master has nothing more to read (EIO, when
  // no slave fd is left open), or 200 ms after the exit. The host holds a slave fd of its own, so
  // that the job's last lines are not dropped by the kernel when the job's own fds close
  // (holdSlave); without more, every exit would wait those 200 ms (a `stop` took 205 ms). So once
  // the process has ended (SIGCHLD), the host writes DRAINED through its slave fd: the terminal
  // keeps order, so when DRAINED comes out of the master everything the job printed has been read,
  // and the host lets go of its fd: the master reads EIO, and node-pty says the exit at once.

  private readonly onChildSignal = () => {
    if (this.exitCheck) return;
    this.exitCheck = setImmediate(() => {
      this.exitCheck = null;
      for (const job of this.jobs.values())
        if (job.pty && !job.drain && hasEnded(job.pid)) this.drain(job, job.pty);
    });
  };

  /** SIGCHLD says that one of the jobs (the host's children) ended, or stopped; listened to while any job lives. */
  private watchExits(): void {
    if (this.watchingExits) return;
    this.watchingExits = true;
    process.on("SIGCHLD", this.onChildSignal);
  }

  private unwatchExitsIfIdle(): void {
    if (!this.watchingExits || this.anyLive()) return;
    this.watchingExits = false;
    process.off("SIGCHLD", this.onChildSignal);
  }

  /** The job's process has ended: its terminal is read to the end (never paused again), then let go. */
  private drain(job: Job, pty: IPty): void {
    const drain: Drain = { held: "", done: false };
    job.drain = drain;
    pty.resume();
    if (job.slave === null) {
      drain.done = true; // no fd of the host's: the master reads EIO by itself once drained
      return;
    }
    try {
      fs.writeSync(job.slave, DRAINED);
    } catch {
      drain.done = true; // the terminal is full or stopped: node-pty's 200 ms then, as before
    }
  }

  /** What of `data` is the job's output: all but DRAINED, and any start of it that may be cut. */
  private drained(job: Job, drain: Drain, data: string): string {
    const text = drain.held + data;
    const at = text.indexOf(DRAINED);
    if (at >= 0) {
      drain.done = true;
      drain.held = "";
      this.letGoOfSlave(job); // read to the end: the master now reads EIO (unless a child holds it)
      return text.slice(0, at) + text.slice(at + DRAINED.length);
    }
    const cut = partialEnd(text, DRAINED);
    drain.held = text.slice(cut);
    return text.slice(0, cut);
  }

  private letGoOfSlave(job: Job): void {
    if (job.slave === null) return;
    fs.close(job.slave, () => {});
    job.slave = null;
  }

  /** Types into the job; it counts as busy until its answer (or its silence) has had a quiet spell. */
  write(job: Job & { input: TypedInput }, data: string): void {
    job.firstInput ??= ticksNow();
    job.input.write(data);
    job.screen.wake();
  }

  resize(job: Job & { pty: IPty }, cols: number, rows: number): void {
    job.pty.resize(cols, rows);
    job.screen.resize(cols, rows);
  }

  // A job whose process has ended is read to its end whatever its screen says (see drain): what
  // node-pty has not read when it gives up on the terminal is lost.
  private flow(job: Job, paused: boolean): void {
    if (!job.pty) return;
    if (paused && !job.drain) job.pty.pause();
    else job.pty.resume();
  }

  signal(job: Job, sig: string): void {
    try {
      process.kill(-job.pid, sig); // the job is a session leader, so its pid is its process group
    } catch {
      process.kill(job.pid, sig);
    }
  }

  /** Drops an exited job (the daemon has recorded its exit); nothing if unknown. */
  forget(jobId: string): void {
    const job = this.jobs.get(jobId);
    if (job?.pty) throw new Error(`job is live: ${job.jobId}`);
    if (!job) return;
    job.screen.dispose();
    this.jobs.delete(jobId);
  }

  // node-pty reports the exit only after the last output it read, so the transcript is complete.
  private onExit(job: Job, ended: ExitInfo): void {
    // A wrapped job (roost's sandbox: bubblewrap, and its init as pid 1 of the job's pid namespace)
    // is over when bubblewrap is: what is left of its process group goes too. Its init ignores
    // every signal but SIGKILL (a namespace's init does), and bubblewrap's own "die with parent"
    // misses an init it had not finished setting up when a stop came (a stop as the job started).
    if (job.wrappers > 0) killGroup(job.pid);
    // What the job left running (its children, moved out of its group or not) goes with it.
    const leftovers = endLeftovers(job.pid, job.mark, job.startedAt);
    const exit = leftovers > 0 ? { ...ended, leftovers } : ended;
    job.pty = null;
    job.input?.close();
    job.input = null;
    job.exit = exit;
    job.transcript?.close();
    job.transcript = null;
    log(
      `job ${job.jobId} pid ${job.pid} exited code ${exit.exitCode} signal ${exit.signal}; ${exit.leftovers ?? 0} leftover processes ended`,
    );
    try {
      writeExitFile(path.join(this.home, "jobs", job.jobId), exit);
    } catch (err) {
      log(`cannot write exit.json for ${job.jobId}: ${String(err)}`);
    }
    this.events.exit(job, exit);
    this.unwatchExitsIfIdle();
  }
}

/** SIGKILL to the process group whose leader was `pid`, if anything of it is left. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // nothing left of it
  }
}

/** Where a tail of `text` that is the start of `marker` begins (text.length when none is). */
function partialEnd(text: string, marker: string): number {
  for (let n = Math.min(text.length, marker.length - 1); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return text.length - n;
  }
  return text.length;
}
