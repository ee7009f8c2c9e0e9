/**
 * Replies delivered (protocol.md, `ack`): on the job's reporting
 * connection, pending until acked, all pending ones sent again on each new reporting connection.
 * Saving one is the `reply` op's (reply.ts).
 */
import { type DeliverEvent, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { ReplyRecord } from "../../store/records.js";
import type { Core } from "../core.js";
import { delivered } from "./lifecycle.js";
import type { LiveJob } from "./registry.js";

/** A reply as the agent gets it; a peer item delivered as an agent item carries its kind, sender and relation. */
export function deliverEvent(
  r: Pick<ReplyRecord, "jobId" | "seq" | "text" | "mode"> &
    Partial<Pick<ReplyRecord, "kind" | "peer" | "why">>,
): DeliverEvent {
  const event: DeliverEvent = { event: "deliver", id: r.jobId, seq: r.seq, text: r.text };
  if (r.mode) event.mode = r.mode;
  if (r.kind && r.peer) {
    event.kind = r.peer.kind;
    event.from = r.peer.from;
    event.relation = r.peer.relation;
    if (r.why) event.why = r.why;
  }
  return event;
}

/**
 * A saved reply or peer item to the job's reporting connection. An item is sent in the form its
 * agent takes, decided now rather than when it was saved (its agent may have been restarting
 * then, its report not yet made): as an item if its latest report said `agentItems`, else as an
 * ordinary follow-up, its envelope in its text, from then on for good.
 */
export function sendSaved(core: Core, job: LiveJob, r: ReplyRecord): void {
  if (!job.link) return;
  if (r.kind && job.rec.report?.agentItems !== true) {
    core.store.asFollowUp(r.jobId, r.seq);
    r.kind = null;
  }
  job.link.send(deliverEvent(r));
  delivered(core, r);
}

/** A new reporting connection: every pending reply is sent again, in order. */
export function sendPending(core: Core, job: LiveJob): void {
  if (!job.link || job.pending === 0) return;
  for (const r of core.store.pendingReplies(job.rec.id)) sendSaved(core, job, r);
}

/** docs/protocol.md, `ack`: cumulative over the user's replies, or `exact` for one peer item. */
export function ack(core: Core, job: LiveJob, seq: number, exact: boolean): void {
  if (seq > job.rec.lastSeq) {
    throw new RoostError(
      "bad_request",
      `seq ${seq} was never sent to ${job.rec.id} (its last is ${job.rec.lastSeq})`,
    );
  }
  const taken = core.store.ack(job.rec.id, seq, exact);
  if (taken > 0) {
    job.pending -= taken;
    core.registry.changed(job, false);
    if (job.rec.role === "concierge") core.concierge.digests.taken(); // a digest owed may go now
  }
}
