/**
 * The agent's side (docs/protocol.md, `hello`, `report`, `ack`): a connection that says hello or
 * reports is a session; the connection a report goes through becomes the job's.
 */
import { timingSafeEqual } from "node:crypto";
import {
  type AgentInfo,
  Context,
  type FullReport,
  type OpArgs,
  type OpResult,
  REPORT_FIELDS,
  RoostError,
} from "../../../sdk/ts/protocol/index.js";
import { knownFields } from "../../validate.js";
import { ROOST_VERSION } from "../../version.js";
import type { Core } from "../core.js";
import { oneLine } from "../text.js";
import { agentConversation } from "./conversation.js";
import { isEnded } from "./lifecycle.js";
import { reportedName } from "./names.js";
import type { AgentLink, LiveJob } from "./registry.js";
import { ack, sendPending } from "./replies.js";
import { setReport } from "./state.js";
import { begins } from "./waiting.js";

/** The daemon's capabilities: what is built, and no more. */
export const DAEMON_CAPABILITIES = [
  "replies",
  "steer",
  "agent-items",
  "peers",
  "spawn",
  "handback",
  "tasks",
  "transcript", // `conversation-append`: a job's conversation (conversation-log.ts)
];

/** What the bridge keeps per connection that matters to the core. */
export interface AgentConnection {
  link: AgentLink;
  /** Said hello or reported: the hub's ops are refused on it. */
  session: boolean;
  jobId: string | null;
  /**
   * The job whose own socket this connection came by (a sandboxed job's, sandbox.ts): it speaks
   * for that job alone, and is never a hub's. null on the owner's socket.
   */
  boundTo: string | null;
  hello: { agent: AgentInfo | null; capabilities: string[] } | null;
}

export function hello(core: Core, conn: AgentConnection, args: OpArgs<"hello">): OpResult<"hello"> {
  conn.session = true;
  const job = conn.jobId ? core.registry.find(conn.jobId) : undefined;
  const own = job !== undefined && job.link === conn.link;
  if (args.conversation) {
    if (!own)
      throw new RoostError(
        "bad_request",
        "say `conversation` on a connection that speaks for its job (after a report)",
      );
    if (agentConversation(job.rec, args.conversation)) {
      core.registry.changed(job, true);
      const text = args.conversation.resumed ? "its conversation resumed" : "a new conversation";
      core.feed.record(
        job.rec.id,
        "start",
        `${text} (its agent's session ${oneLine(args.conversation.session)})`,
        { who: core.registry.nameOf(job), whoId: job.rec.id }, // the agent's word, as its reports'
      );
    }
    // Said alone, it is all this hello says: the connection's agent and capabilities stay.
    if (args.agent === undefined && args.capabilities === undefined) return helloResult();
  }
  const agent = args.agent ? { name: oneLine(args.agent.name), version: oneLine(args.agent.version) } : null;
  conn.hello = { agent, capabilities: args.capabilities ?? [] };
  if (own && applyHello(job, conn)) core.registry.changed(job, false);
  return helloResult();
}

function helloResult(): OpResult<"hello"> {
  return {
    protocol: 1,
    daemon: { name: "roost", version: ROOST_VERSION },
    capabilities: DAEMON_CAPABILITIES,
  };
}

/** The connection's hello, on its job's row; true if that changed it (a reconnect says the same). */
export function applyHello(job: LiveJob, conn: AgentConnection): boolean {
  if (!conn.hello) return false;
  const { agent, capabilities } = conn.hello;
  const rec = job.rec;
  const same =
    rec.agent?.name === agent?.name &&
    rec.agent?.version === agent?.version &&
    rec.capabilities.length === capabilities.length &&
    rec.capabilities.every((c, i) => c === capabilities[i]);
  rec.agent = agent;
  rec.capabilities = capabilities;
  return !same;
}

/**
 * The job, if the token is its own (compared in constant time), and the connection may speak for
 * it: on a sandboxed job's own socket, that job alone, whatever token is shown.
 */
export function authorize(core: Core, conn: AgentConnection, id: string, token: string): LiveJob {
  if (conn.boundTo !== null && id !== conn.boundTo)
    throw new RoostError(
      "unauthorized",
      `this socket is ${conn.boundTo}'s alone: it speaks for no other job`,
    );
  const job = core.registry.get(id);
  if (!sameSecret(token, job.rec.token)) {
    throw new RoostError("unauthorized", `that token is not ${id}'s: stop speaking for this job`);
  }
  return job;
}

/**
 * Constant time for a guess of the right length; a token's length is no secret (every token is
 * 32 characters). Hashing both first would hide the length too, at a cost on every report.
 */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The connection made the job's (`report`, `speak_for`), its token checked: `unauthorized` once the
 * job has ended, `bad_request` when the connection speaks for another job already.
 */
function speakingFor(core: Core, conn: AgentConnection, id: string, token: string): LiveJob {
  const job = authorize(core, conn, id, token);
  if (isEnded(job)) throw new RoostError("unauthorized", `${id} has ended: stop speaking for it`);
  if (conn.jobId !== null && conn.jobId !== id)
    throw new RoostError(
      "bad_request",
      `this connection speaks for ${conn.jobId}; open another one for ${id}`,
    );
  conn.session = true;
  conn.jobId = id;
  return job;
}

export function report(core: Core, conn: AgentConnection, args: OpArgs<"report">): OpResult<"report"> {
  const job = speakingFor(core, conn, args.id, args.token);
  const rec = job.rec;
  // The known fields only (unknown ones are ignored, not kept), each null when left out; the
  // free-form ones were bounded by the args' check (schema.ts, `freeForm`).
  const given = args.report as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const key of REPORT_FIELDS) fields[key] = given[key] ?? null;
  const next = fields as FullReport;
  if (next.context) next.context = knownFields(Context, next.context);
  // The name rules (names.ts): a reported name that breaks one is ignored, never refused.
  next.name = reportedName(next.name);
  // Handed back with `done` (peers.ts): the handback is its result, and the row stays done while
  // it is stopped; the turn the agent goes on with meanwhile does not take it back to working.
  const handedBack = job.handedBack ? rec.report : null;
  if (handedBack)
    Object.assign(next, { state: handedBack.state, status: handedBack.status, summary: handedBack.summary });
  const newKind = rec.kind === "terminal";
  if (rec.kind !== "foreground") rec.kind = "protocol";
  const newLink = job.link !== conn.link;
  let helloChanged = false;
  if (newLink) {
    job.link = conn.link;
    helloChanged = applyHello(job, conn);
  }
  // Its first turn begun (waiting.ts): no longer `starting`. Set before the report is applied, so
  // that the row, and a watch's look at it, see both at once.
  const begun = !job.begun && begins(next);
  if (begun) job.begun = true;
  // A report that says the same again (a reconnect sends it) changes nothing but `connected`.
  const said = setReport(core, job, next);
  if (said !== "content" && (newKind || helloChanged || begun)) core.registry.changed(job, false);
  else if (said === null && newLink) core.registry.noted(job, false);
  // Sent before this report's answer, so that no newer reply can overtake a pending one.
  if (newLink) sendPending(core, job);
  // The concierge is back (started, reconnected): what waited for it, a due order's digest.
  if (newLink && rec.role === "concierge") core.concierge.digests.connected();
  return {};
}

/**
 * `speak_for`: this connection acts as the job in the peer ops and on the task board, as a report
 * would make it, but reports nothing and takes no replies: the job's row stays its reports' (or its
 * screen's, a terminal agent's), and its deliveries go where they went. For a tool server of the
 * job's agent (`roost mcp` in a terminal agent's MCP configuration), which is not the agent.
 */
export function speakFor(
  core: Core,
  conn: AgentConnection,
  args: OpArgs<"speak_for">,
): OpResult<"speak_for"> {
  speakingFor(core, conn, args.id, args.token);
  return {};
}

export function agentAck(core: Core, conn: AgentConnection, args: OpArgs<"ack">): OpResult<"ack"> {
  const job = authorize(core, conn, args.id, args.token);
  // As a report: an ended job's token speaks for it no more (its replies wait for its next start).
  if (isEnded(job)) throw new RoostError("unauthorized", `${args.id} has ended: stop speaking for it`);
  ack(core, job, args.seq, args.exact ?? false);
  return {};
}

/** A connection closed: if it was its job's, the job is no longer connected. */
export function connectionClosed(core: Core, conn: AgentConnection): void {
  const job = conn.jobId ? core.registry.find(conn.jobId) : undefined;
  if (job && job.link === conn.link) {
    job.link = null;
    job.awaySince = Date.now();
    core.registry.noted(job, false); // connected, not its content
    if (job.rec.kind === "foreground") core.peers.foreground.disconnected(core, job);
  }
}
