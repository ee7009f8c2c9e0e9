/** What the store keeps, in the shapes the core works with. */
import type {
  AgentInfo,
  BudgetScope,
  FullReport,
  HookAgent,
  ITEM_KINDS,
  Limits,
  MISSED_RULES,
  RELATIONS,
  Row,
  ScheduleLaunch,
  ScheduleRun,
  SessionRef,
  Spent,
  StopReason,
  Worktree,
} from "../../sdk/ts/protocol/index.js";

/** How a job is started: fixed at dispatch, used again by respawn. */
export interface Launch {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  /** "type": the first task is reply seq 1; "argv": it was appended to command. */
  task: "type" | "argv";
  /**
   * A "type" job's task, typed again when it is respawned (a new reply); absent without a task,
   * and on jobs made before it was kept.
   */
  taskText?: string;
  protocol: boolean;
  /**
   * A terminal agent that reads typed text as a message (its profile's `messages`): peer items may
   * be typed into it. Absent on jobs made before it existed, and false for a shell.
   */
  messages?: boolean;
  /** Reading the row from the screen (absent on jobs made before it existed). */
  blockedPatterns?: string[];
  /** Its profile's own prompt patterns (docs/terminals.md); absent: roost's defaults. */
  promptPatterns?: string[];
  quietMs?: number;
  /**
   * The agent CLI whose hooks roost installs for the job (core/jobs/agent-hooks.ts), and whether
   * its task is the command's last word (a respawn that resumes its session leaves it out).
   */
  hooks?: { agent: HookAgent; taskArg: boolean };
  /** Run in roost's sandbox (core/jobs/sandbox.ts); absent for a job run as the user, unconfined. */
  sandbox?: SandboxLaunch;
  /**
   * Stopped once it has had nothing to do this long (its `idleStop`, fixed at dispatch so that a
   * respawn keeps it: core/jobs/idle.ts); absent: never (off, or a job made before it existed).
   */
  idleStopMs?: number;
}

/** A sandboxed job's launch: what its profile said when it was dispatched, kept for respawn. */
export interface SandboxLaunch {
  /** false: no network but its own loopback (`--unshare-net`). */
  network: boolean;
  /** What it may write besides its tree, its directory and its /tmp: real paths, as at dispatch. */
  writable: string[];
  /**
   * Its tree (its worktree, or where it runs) where it really was at dispatch: a start binds it
   * only if it still is there (not a link the job has put in its place since).
   */
  tree: string;
}

export interface JobRecord {
  id: string;
  token: string;
  profile: string;
  launch: Launch;
  userName: string | null;
  defaultName: string;
  role: Row["role"];
  parent: string | null;
  pinned: boolean;
  order: number;
  life: Row["life"];
  exitCode: number | null;
  pid: number | null;
  kind: Row["kind"];
  agent: AgentInfo | null;
  capabilities: string[];
  report: FullReport | null;
  /** The row's `asked` (core/jobs/asked.ts): moves when its question or choices change, and when answered. */
  asked: number;
  lastSeq: number;
  dispatchRequestId: string | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  updatedAt: string;
  /** A foreground pi's own session key (`peer_register`); null for every other job. */
  sessionKey: string | null;
  /** Its git worktree (docs/worktrees.md); null for a job run where it was told. */
  worktree: Worktree | null;
  /** How its agent's conversation goes on at a respawn (core/jobs/conversation.ts); null when roost cannot tell. */
  conversation: Conversation | null;
  /** Why roost stopped it by itself (core/jobs/lifecycle.ts), while it stays stopped; null otherwise. */
  stopReason: StopReason | null;
  /** Its own budget and what it spent (core/budgets/); null until either is set. */
  budget: JobBudget | null;
}

/** A job's budget as kept (core/budgets/): its own limits, its spend, and what counting it needs. */
export interface JobBudget {
  /** Its own budget: dispatch's `budget`, the `budget` op; null: roost.json's `budgets.job`. */
  own: Limits | null;
  spent: Spent;
  /** The last cost and tokens its agent reported (cumulative over its session): the next report counts the rise. */
  seen: { cost: number; tokens: number } | null;
  /** The scopes its respawn freed it from (docs/budgets.md), until the end of `until` (a day). */
  exempt: { scopes: BudgetScope[]; until: string } | null;
}

/**
 * A job's conversation, as roost keeps it between the starts of its agent: `pi`, in the session
 * file roost names (`--session`); `agent`, in the session its agent said it is in (`hello`'s
 * `conversation`: the ACP bridge, through `session/load`); `new`, an agent CLI that roost cannot
 * resume, which begins anew at each start.
 */
export interface Conversation {
  how: "pi" | "agent" | "new";
  /** pi's session file; the agent's session id; null when there is none (yet). */
  session: string | null;
  /** Its last start continued the conversation before it (true), or began one (false); null while not known. */
  resumed: boolean | null;
}

/**
 * A job as the store read it: what its agent sent (report, hello) is not trusted to be what the
 * schema says (an older roost kept it unchecked), so it comes as read, for core/jobs/stored-jobs.ts to
 * check; JSON that does not parse comes as `Unreadable`.
 */
export type StoredJob = Omit<JobRecord, "report" | "agent" | "capabilities"> & {
  report: unknown;
  agent: unknown;
  capabilities: unknown;
};

export class Unreadable {
  constructor(readonly why: string) {}
}

/** What makes a reply a peer item: its kind, its sender, and the sender as the receiver sees it. */
export interface PeerMeta {
  kind: (typeof ITEM_KINDS)[number];
  from: SessionRef;
  relation: (typeof RELATIONS)[number];
}

export interface ReplyRecord {
  jobId: string;
  seq: number;
  /** A peer item's text begins with its envelope. */
  text: string;
  mode: "steer" | "followUp" | null;
  /** Set for a peer item delivered as an agent item (acked exactly); null for the rest. */
  kind: string | null;
  requestId: string | null;
  at: string;
  /** Null for the user's replies. */
  peer: PeerMeta | null;
  /** A child's handback with `done`: that child is stopped once this is delivered. */
  thenStop: string | null;
  /** A digest's reason (`events`, `order`), on its delivery; null for the rest. */
  why: string | null;
}

export interface NewReply {
  text: string;
  mode: "steer" | "followUp" | null;
  kind?: string | null;
  requestId?: string | null;
  peer?: PeerMeta | null;
  thenStop?: string | null;
  why?: string | null;
}

/** A session's watch on another (`watch`): kept across restarts until it fires or expires. */
export interface WatchRecord {
  watcher: string;
  target: string;
  targetName: string;
  /** `handback` (and `ended`) on its own children: `target` is then the watcher itself. */
  when: "idle" | "ended" | "handback";
  at: string;
  expiresAt: string;
}

export interface NewFeedEntry {
  id: string;
  kind: string;
  text: string;
  who: string;
  whoId: string | null;
  /** A `task` entry's change. */
  why?: string;
}

/** A named HTTP token: its secret is never stored, only its hash. */
export interface TokenRecord {
  name: string;
  hash: string;
  readOnly: boolean;
  createdAt: string;
}

/** A schedule as kept (docs/protocol.md, "Schedules"): its `when` as written, read again at start. */
export interface ScheduleRecord {
  id: string;
  name: string;
  when: string;
  launch: ScheduleLaunch;
  paused: boolean;
  missed: (typeof MISSED_RULES)[number];
  /** When it was made: what an `every` counts from. */
  createdAt: string;
  nextAt: string | null;
  lastAt: string | null;
  lastJob: string | null;
  /** The last LIMITS.scheduleRuns, oldest first. */
  runs: ScheduleRun[];
}
