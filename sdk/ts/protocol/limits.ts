/**
 * The protocol's numbers, and a report's empty fields: plain values with no imports, so that the
 * agent client (which runs on node alone) and the daemon share one source of them.
 */

/** Limits the spec names (agent-protocol.md, `report`), and roost's own where it names none. */
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
} as const;

/** Every report field but `state`, null: what a report leaves out (agent-protocol.md, `report`). */
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
