/**
 * The protocol's numbers, and a report's empty fields: plain values with no imports, so that the
 * agent client (which runs on node alone) and the daemon share one source of them.
 */

/** Limits the spec names (docs/protocol.md, `report`), and roost's own where it names none. */
export const LIMITS = {
  summary: 500,
  question: 2000,
  choices: 20,
  choice: 200,
  tool: 100,
  error: 1000,
  name: 200,
  model: 200,
  thinking: 100,
  prLinks: 50,
  prLink: 2000,
  remoteAt: 2000,
  text: 65536, // a reply or a task; the spec sets none, a line is 4 MiB at most anyway
  freeFormBytes: 65536, // `usage`, `attachSignal`, `attachRepaint`: kept as sent, at most this as JSON
  depth: 32, // any value in an op's args is nested at most this deep (the args object is level 1)
  pendingReplies: 50,
  requestIdsKept: 100,
  feedKept: 1000,
  lineBytes: 4 * 1024 * 1024,
  connections: 1024,
  inFlight: 256,
  unreadBytes: 16 * 1024 * 1024,
  // The peers (docs/protocol.md, "The peer ops": Rules):
  peerText: 8000, // a `send` or `handback` text
  peerItemsWaiting: 20, // peer items not yet taken, per receiver (`full`)
  sendsPerMinute: 30, // `send`s per sender (`rate_limited`); handbacks and notices are not counted
  duplicateMs: 60_000, // the same text to the same session again within this is a duplicate
  children: 8, // live children per session (`spawn`: `full`)
  spawnsPerMinute: 30, // `spawn`s per parent, ended children too (`rate_limited`)
  treeDepth: 4, // a session tree at most this deep, its root at 1 (`spawn`: `full`)
  watches: 20, // per session (`full`)
  watchMs: 12 * 3600_000, // a watch expires after this
  foregroundGraceMs: 5000, // a foreground pi's row waits this long for it to come back (PI_ROOST_FG_CLAIM_GRACE_MS)
  // The task board (docs/protocol.md, "The task board"):
  boardTasks: 200, // kept at most; the oldest done or dropped go first, else `add` is `full`
  taskTitle: 200, // folded to one line: it heads the task's feed entries and messages
  taskDetail: 8000, // as a peer's text: it goes to the assignee in a message
  taskResult: 2000,
  // After a daemon restart a session's claims wait this long, beyond the grace, for its agent to
  // connect again: the TypeScript client's longest wait between attempts (5 s, +20 % jitter).
  reconnectMs: 6000,
  // Schedules (docs/protocol.md, "Schedules"):
  schedules: 100, // at most (`full`)
  scheduleRuns: 20, // the last runs a schedule keeps
  scheduleWhen: 200, // a `when`, in characters
  everyMinMs: 60_000, // `every N…` at least this
  everyMaxMs: 366 * 86_400_000, // and at most this
  scheduleLateMs: 60_000, // a run at most this late (the daemon starting) is run, not counted as missed
  // Worktrees and changes (docs/worktrees.md):
  diffBytes: 1024 * 1024, // `changes`' unified diff is cut here, at a file's start where it can be
  diffFiles: 2000, // `changes` lists at most this many files
  // The concierge (docs/protocol.md, "The concierge"):
  conciergeSay: 4000, // what it tells the user, in one `concierge-say`
  orders: 50, // standing orders kept at most (`full`)
  orderText: 1000, // a standing order's text
  missedCounted: 100, // runs missed are counted up to this ("100 or more"): a cron run costs croner ~0.15 ms to find
  // What a remote daemon may send this one (docs/fleet.md, "What a remote may send"):
  remoteRows: 10_000, // rows kept of one remote
  remoteRowBytes: 512 * 1024, // one row of a remote's, as JSON: above any row a daemon makes (its free-form fields are 64 KiB each)
  // One message or answer of a remote's, and all its rows kept, as JSON: a socket client is dropped
  // at 16 MiB unread (`unreadBytes`), and a `list` carries every remote's rows and this daemon's.
  remoteBytes: 8 * 1024 * 1024,
  // A job's conversation (docs/protocol.md, "The conversation"):
  entryText: 16_000, // an entry's text, a tool's input or output, a diff's either side
  entryName: 200, // a tool's id and name
  planSteps: 50, // a plan's steps
  planStep: 1000, // one step's text
  entriesPerCall: 100, // entries in one `conversation-append`
  entriesRead: 1000, // entries in one `conversation` answer at most (500 unless asked)
  conversationBytes: 4 * 1024 * 1024, // conversation.jsonl is rotated past this (two files kept)
} as const;

/** Every report field but `state`, null: what a report leaves out (docs/protocol.md, `report`). */
export const NULL_REPORT_FIELDS = {
  status: null,
  waitingFor: null,
  summary: null,
  question: null,
  choices: null,
  tool: null,
  error: null,
  name: null,
  model: null,
  thinking: null,
  context: null,
  usage: null,
  prLinks: null,
  remoteAt: null,
  attachSignal: null,
  attachRepaint: null,
  agentItems: null,
} as const;
