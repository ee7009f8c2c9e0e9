/** The domain's parts, wired once in main.ts and handed to every op. */
import type { Config } from "../config.js";
import type { Paths } from "../paths.js";
import type { ListResult, ScreenState, Snapshot, SpawnSpec } from "../pty/wire.js";
import type { Secrets } from "../secrets.js";
import type { Store } from "../store/store.js";
import type { TaskBoard } from "./board/index.js";
import type { Budgets } from "./budgets/index.js";
import type { Clock } from "./clock.js";
import type { Concierge } from "./concierge/index.js";
import type { Feed } from "./feed.js";
import type { IdleStops, Registry } from "./jobs/index.js";
import type { Notify } from "./notify/index.js";
import type { Foreground, PeerRules, Watches } from "./peers/index.js";
import type { Pushes } from "./pushes.js";
import type { MergeQueue } from "./queue/index.js";
import type { Remotes } from "./remotes.js";
import type { Schedules } from "./schedules/index.js";
import type { Viewers } from "./terminals/index.js";
import type { Tokens } from "./tokens.js";
import type { WorktreeStats } from "./worktrees/index.js";

/** How a job ended, as the pty host says or wrote it. */
export interface ExitInfo {
  jobId: string;
  exitCode: number | null;
  signal: number | null;
  at?: string;
  /** How many processes the job left, ended by the pty host once its own ended (server/pty/leftovers.ts). */
  leftovers?: number;
}

/** What the daemon needs of the pty host (server/pty/client.ts): jobs' terminals, held apart. */
export interface Terminals {
  spawn(spec: SpawnSpec): Promise<{ pid: number }>;
  write(jobId: string, data: string): Promise<unknown>;
  signal(jobId: string, signal: NodeJS.Signals): Promise<unknown>;
  list(): Promise<ListResult>;
  forget(jobId: string): Promise<unknown>;
  resize(jobId: string, cols: number, rows: number): Promise<unknown>;
  screen(jobId: string): Promise<ScreenState>;
  attach(jobId: string): Promise<Snapshot>;
  detach(jobId: string): Promise<unknown>;
}

/**
 * The sandboxed jobs' own sockets (bridge/job-sockets.ts): each listens at its job's
 * `sandbox/roost.sock`, and its connections speak for that job alone.
 */
export interface JobSockets {
  /** Listens for the job (made again at the same path); one listening already is left as it is. */
  open(jobId: string): Promise<void>;
  close(jobId: string): Promise<void>;
}

/**
 * The daemon, as every op sees it. All a daemon keeps is reachable from here: in its parts (the
 * registry's jobs, each a `LiveJob` with its own state; the viewers; the pushes' subscribers),
 * never at a module's level, so that two daemons in one process share nothing.
 */
export interface Core {
  config: Config;
  paths: Paths;
  store: Store;
  registry: Registry;
  feed: Feed;
  pushes: Pushes;
  viewers: Viewers;
  /** The one timer for every due thing, and the time by it (clock.ts). */
  clock: Clock;
  schedules: Schedules;
  /** roost.json's notify hooks, told of each row that changes and each schedule that needs the user. */
  notify: Notify;
  /** The peers' state: the message rules' memory, the watches, foreground pis' grace timers. */
  peers: { rules: PeerRules; watches: Watches; foreground: Foreground };
  /** The task board. */
  board: TaskBoard;
  /** The rows' `worktree.stat`, taken as jobs come to rest (worktree-stat.ts). */
  worktrees: WorktreeStats;
  /** Other daemons' rows, and what a hub does to them sent on (roost.json's remotes). */
  remotes: Remotes;
  /** The concierge's policy, last answer, standing orders and digests. */
  concierge: Concierge;
  terminals: () => Promise<Terminals>;
  /** The sandboxed jobs' sockets. */
  jobSockets: JobSockets;
  /** bubblewrap's program, for sandboxed jobs (`ROOST_BWRAP`, else `bwrap` on the PATH). */
  bwrap: string;
  /** How long `stop` waits after SIGTERM before SIGKILL. */
  stopGraceMs: number;
  /** The HTTP face's tokens, and its address once it listens (`http://127.0.0.1:7777/`). */
  tokens: Tokens;
  hubUrl: () => Promise<string>;
  /** Ends the daemon (the `shutdown` op); the jobs keep running. */
  shutdown: () => void;
  /**
   * The daemon's environment: what its jobs inherit, and the user's home (`userHome`, for a `~` and
   * the default cwd). The one it was started with, not necessarily this process's (a daemon started
   * in a test's own process has its own). git and the merge queue's checks still inherit the
   * process's own (worktrees/git.ts, queue/check-run.ts).
   */
  env: NodeJS.ProcessEnv;
  /** roost.json's secrets, and the one redaction of what the daemon says (secrets.ts). */
  secrets: Secrets;
  /** The jobs that rest, each until its idleStop puts it to sleep (jobs/idle.ts). */
  idle: IdleStops;
  /** The merge queue: jobs' branches landed one at a time, each checked first (core/queue/). */
  queue: MergeQueue;
  /** What jobs spend, against their budgets (core/budgets/): counted, noticed at 80%, paused at 100%. */
  budgets: Budgets;
}
