// Messages between the roost daemon and the pty host: one JSON object per line over a unix socket.
// The host outlives daemon restarts, so this protocol changes rarely; bump PROTOCOL_VERSION when it does.

export const PROTOCOL_VERSION = 1;

/** Bytes-ish (UTF-16 units) of recent output the host keeps per job. */
export const TAIL_LIMIT = 64 * 1024;

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

type Empty = Record<string, never>;

/** Each op's parameters (besides id and op) and its answer (besides id and ok). */
export interface Ops {
  hello: { params: Empty; result: HelloResult };
  spawn: { params: SpawnSpec; result: { pid: number } };
  write: { params: { jobId: string; data: string }; result: Empty };
  resize: { params: { jobId: string; cols: number; rows: number }; result: Empty };
  /** Sent to the job's process group; `signal` is a name such as "SIGTERM". */
  signal: { params: { jobId: string; signal: string }; result: Empty };
  list: { params: Empty; result: ListResult };
  /** The daemon has recorded this exit; the host may drop the job. */
  forget: { params: { jobId: string }; result: Empty };
  tail: { params: { jobId: string }; result: { data: string } };
  /** Ask for (or stop) output events of a job on this connection. */
  follow: { params: { jobId: string; on: boolean }; result: Empty };
}

export type Op = keyof Ops;
export type OpParams<O extends Op> = Ops[O]["params"];
export type OpResult<O extends Op> = Ops[O]["result"];

export type Request<O extends Op = Op> = { id: number; op: O } & OpParams<O>;

/** id is null when the host could not read an id from the line it answers. */
export type Reply<O extends Op = Op> =
  | ({ id: number | null; ok: true } & OpResult<O>)
  | { id: number | null; ok: false; error: string };

export interface ExitEvent extends JobExit {
  event: "exit";
}

export interface OutputEvent {
  event: "output";
  jobId: string;
  data: string;
}

export type HostEvent = ExitEvent | OutputEvent;

/** Anything the host sends. */
export type HostMessage = Reply | HostEvent;
