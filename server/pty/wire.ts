// Messages between the roost daemon and the pty host: one JSON object per line over a unix socket.
// The host outlives daemon restarts, so this protocol changes rarely; bump PROTOCOL_VERSION when it does.

import type { JobResources } from "./resources.js";

export type { JobResources } from "./resources.js";

export const PROTOCOL_VERSION = 2;

/** Bytes-ish (UTF-16 units) of recent output the host keeps per job. */
export const TAIL_LIMIT = 64 * 1024;
/** Lines a job's screen keeps above the visible rows, unless its spawn spec says otherwise. */
export const DEFAULT_SCROLLBACK = 1000;
/**
 * A job with no output (and nothing typed into it) for this long is no longer busy, unless its
 * spawn spec says otherwise or something still runs in its terminal's foreground (processes.ts:
 * then it is asked again after as long); a terminal agent is then idle (its row says so;
 * follow-ups are typed). The daemon's default too.
 */
export const DEFAULT_QUIET_MS = 1500;
/** A job's transcript.log is rotated past this size, unless its spawn spec says otherwise. */
export const DEFAULT_TRANSCRIPT_BYTES = 4 * 1024 * 1024;
/** While a job's output flows, screen events for it come at most this often. */
export const SCREEN_INTERVAL_MS = 250;

export interface SpawnSpec {
  jobId: string;
  /** A path, or a bare name looked up on env.PATH. */
  file: string;
  args: string[];
  cwd: string;
  /** The job's whole environment; the host adds TERM=xterm-256color. */
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** Lines of the job's screen kept above its visible rows (DEFAULT_SCROLLBACK). */
  scrollback?: number;
  /** How long without output before the job counts as quiet (DEFAULT_QUIET_MS). */
  quietMs?: number;
  /**
   * Bound of jobs/<jobId>/transcript.log (DEFAULT_TRANSCRIPT_BYTES): past it the file becomes
   * transcript.1.log (replacing an older one) and a new one is begun.
   */
  transcriptBytes?: number;
  /**
   * How many processes wrap the job's own, each the only parent of the next (a sandbox's bubblewrap
   * and its init: 2): whether the job waits for input is asked of the one they wrap.
   */
  wrappers?: number;
}

/**
 * How a job ended, as written to jobs/<jobId>/exit.json. A job killed by a signal reports
 * exitCode 0 and the signal number, so look at `signal` before trusting `exitCode`.
 */
export interface ExitInfo {
  exitCode: number;
  signal: number | null;
  /** ISO timestamp of when the host saw the exit. */
  at: string;
  /** How many processes of the job were left once its own had ended, and were ended (leftovers.ts); absent for none. */
  leftovers?: number;
}

export interface JobExit extends ExitInfo {
  jobId: string;
}

export interface LiveJob {
  jobId: string;
  pid: number;
}

export interface HelloResult {
  pid: number;
  version: number;
}

export interface ListResult {
  live: LiveJob[];
  exited: JobExit[];
}

/** What a job's terminal shows, as text. */
export interface ScreenState {
  jobId: string;
  /** The visible rows, top to bottom, trailing spaces trimmed (but on a row the next continues). */
  lines: string[];
  /** The cursor's row within `lines`. */
  cursorY: number;
  /** The cursor's column (a prompt is read up to it). Absent from a host before it was said. */
  cursorX?: number;
  /**
   * The rows (indexes in `lines`) that continue the row above: a line wider than the terminal,
   * wrapped. Absent from a host before it was said.
   */
  wrapped?: number[];
  /**
   * True while output flows; false once none came (nor was anything typed) for the job's quietMs
   * and nothing runs in its terminal's foreground (a command its shell runs, processes.ts).
   */
  busy: boolean;
  /** ISO timestamp of when the host read this state. */
  at: string;
}

/** A job's screen as ANSI: written to a fresh terminal of cols x rows, it reproduces the screen. */
export interface Snapshot {
  snapshot: string;
  cols: number;
  rows: number;
  /** The seq of the last output chunk the snapshot holds (0: none yet). */
  seq: number;
}

type Empty = Record<string, never>;

/** Each op's parameters (besides id and op) and its answer (besides id and ok). */
export interface Ops {
  hello: { params: Empty; result: HelloResult };
  spawn: { params: SpawnSpec; result: { pid: number } };
  /** Typed into the job's terminal: the job is busy until a quiet spell passes (see ScreenState.busy). */
  write: { params: { jobId: string; data: string }; result: Empty };
  /** Resizes the job's terminal and its screen. */
  resize: { params: { jobId: string; cols: number; rows: number }; result: Empty };
  /** Sent to the job's process group; `signal` is a name such as "SIGTERM". */
  signal: { params: { jobId: string; signal: string }; result: Empty };
  list: { params: Empty; result: ListResult };
  /** The daemon has recorded this exit; the host may drop the job. */
  forget: { params: { jobId: string }; result: Empty };
  tail: { params: { jobId: string }; result: { data: string } };
  /** The job's screen now, with all output so far taken in. */
  screen: { params: { jobId: string }; result: ScreenState };
  /**
   * The job's screen as a snapshot, and from then on its output events on this connection. Every
   * output event this connection got before the answer is in the snapshot, and none after it is.
   * Asked again while attached, it answers a fresh snapshot on the same terms. (The snapshot's
   * seq says the same by number: it holds exactly the chunks up to it.)
   */
  attach: { params: { jobId: string }; result: Snapshot };
  /** No more output events of the job on this connection. */
  detach: { params: { jobId: string }; result: Empty };
}

export type Op = keyof Ops;
export type OpParams<O extends Op> = Ops[O]["params"];
export type OpResult<O extends Op> = Ops[O]["result"];

export type Request<O extends Op = Op> = { id: number; op: O } & OpParams<O>;

/** id is null when the host could not read an id from the line it answers. */
export type Reply<O extends Op = Op> =
  | ({ id: number | null; ok: true } & OpResult<O>)
  | { id: number | null; ok: false; error: string; code?: "busy" }; // code: a refusal to hand on

/** To the daemon (the newest connection): a job ended. */
export interface ExitEvent extends JobExit {
  event: "exit";
}

/** To each connection attached to the job: what it printed. */
export interface OutputEvent {
  event: "output";
  jobId: string;
  data: string;
  /** The chunk's number: 1, 2, ... in each run of the job. */
  seq: number;
}

/**
 * To the daemon (the newest connection): a job's screen, at most every SCREEN_INTERVAL_MS while
 * its output flows (its latest state always comes), and once more when it turns quiet.
 */
export interface ScreenEvent extends ScreenState {
  event: "screen";
}

/**
 * To the daemon (the newest connection): what each live job's processes use, one event per pass
 * over /proc (resources.ts), every RESOURCES_INTERVAL_MS. A host from before it sends none.
 */
export interface ResourcesEvent {
  event: "resources";
  jobs: JobResources[];
  /** ISO timestamp of the pass. */
  at: string;
}

export type HostEvent = ExitEvent | OutputEvent | ScreenEvent | ResourcesEvent;

/** Anything the host sends. */
export type HostMessage = Reply | HostEvent;
