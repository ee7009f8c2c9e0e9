/**
 * Replies delivered (protocol.md, `ack`): on the job's reporting
 * connection, pending until acked, all pending ones sent again on each new reporting connection.
 * Saving one is the `reply` op's (reply.ts).
 *
 * Batches (protocol.md, "The peer ops": Batches): to an agent that said `item-batches`, several items go as one
 * delivery (`items`, under the last one's seq): its children's handbacks that come close together
 * (a handback waits up to BATCH_MS for others), those held while it waits on its children (a
 * `watch {children: true}`, with its notice), and the handbacks waiting when it connects. Each item
 * stays saved on its own; only the sending groups them. Nothing is sent past what is held: anything
 * else for the job takes the held items with it first, so that items reach the agent in their seq
 * order (the clients skip what is at or below the last seq they finished).
 */
import { batchText, type DeliverEvent, ITEM_BATCHES, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { ReplyRecord } from "../../store/records.js";
import type { Core } from "../core.js";
import { delivered } from "./lifecycle.js";
import type { LiveJob } from "./registry.js";

/** How long a handback waits for others to the same parent, to go with them as one delivery. */
export const BATCH_MS = 1000;

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
  } else if (!r.peer && r.why) {
    // A reply with a reason is the concierge's answer in the user's place (concierge-answers.ts).
    event.answeredBy = "concierge";
    event.why = r.why;
  }
  return event;
}

/** The job's agent takes several items as one delivery (it said so in hello). */
export const takesBatches = (job: LiveJob): boolean => job.rec.capabilities.includes(ITEM_BATCHES);

/**
 * Saved records to the job's reporting connection: one delivery for several to an agent that takes
 * batches, else one each. An item is sent in the form its agent takes, decided now rather than when
 * it was saved (its agent may have been restarting then, its report not yet made): as an item if
 * its latest report said `agentItems`, else as an ordinary follow-up, its envelope in its text,
 * from then on for good.
 */
function send(core: Core, job: LiveJob, records: ReplyRecord[]): void {
  if (!job.link || records.length === 0) return;
  for (const r of records) {
    if (r.kind && job.rec.report?.agentItems !== true) {
      core.store.asFollowUp(r.jobId, r.seq);
      r.kind = null;
    }
  }
  if (records.length === 1 || !takesBatches(job)) {
    for (const r of records) job.link.send(deliverEvent(r));
  } else {
    const last = records.at(-1)!;
    const event = deliverEvent(last);
    event.text = batchText(records);
    event.items = records.map((r) => {
      const one = deliverEvent(r);
      return {
        seq: r.seq,
        text: r.text,
        ...(one.kind ? { kind: one.kind, from: one.from, relation: one.relation } : {}),
      };
    });
    // An exact ack of the last takes them all; a cumulative one takes them as follow-ups anyway.
    job.batches.set(
      last.seq,
      records.map((r) => r.seq),
    );
    job.link.send(event);
  }
  for (const r of records) delivered(core, r);
}

/** The held items still waiting, taken off the held list (a timer for them stopped). */
function takeHeld(core: Core, job: LiveJob): ReplyRecord[] {
  if (job.heldTimer) clearTimeout(job.heldTimer);
  job.heldTimer = null;
  if (job.held.length === 0) return [];
  const seqs = new Set(job.held);
  job.held = [];
  return core.store.pendingReplies(job.rec.id).filter((r) => seqs.has(r.seq));
}

/** A saved reply or peer item to the job's reporting connection, with what was held before it. */
export function sendSaved(core: Core, job: LiveJob, r: ReplyRecord): void {
  if (!job.link) return;
  send(core, job, [...takeHeld(core, job).filter((h) => h.seq !== r.seq), r]);
}

/** What was held goes now (before a reply of the user's, or once the wait is over). */
export function releaseHeld(core: Core, job: LiveJob): void {
  send(core, job, takeHeld(core, job));
}

/**
 * A handback just saved waits to go with others: until its parent's watch on its children fires
 * (`untilFanIn`), else for BATCH_MS. Its child is stopped now (a handback with `done`): the item is
 * on disk, and its parent no longer waits on it.
 */
export function hold(core: Core, job: LiveJob, r: ReplyRecord, untilFanIn: boolean): void {
  job.held.push(r.seq);
  delivered(core, r);
  if (untilFanIn || job.heldTimer) return;
  job.heldTimer = setTimeout(() => {
    job.heldTimer = null;
    if (!job.fanIn) releaseHeld(core, job);
  }, BATCH_MS);
  job.heldTimer.unref();
}

const isHandback = (r: ReplyRecord): boolean => r.kind !== null && r.peer?.kind === "report";

/**
 * A new reporting connection: every pending reply is sent again, in order; to an agent that takes
 * batches, handbacks next to each other as one delivery, and those at the end held while it waits
 * on its children.
 */
export function sendPending(core: Core, job: LiveJob): void {
  takeHeld(core, job);
  job.batches.clear();
  if (!job.link || job.pending === 0) return;
  const pending = core.store.pendingReplies(job.rec.id);
  if (!takesBatches(job)) {
    for (const r of pending) send(core, job, [r]);
    return;
  }
  let run: ReplyRecord[] = [];
  for (const r of pending) {
    if (isHandback(r)) {
      run.push(r);
      continue;
    }
    send(core, job, run);
    run = [];
    send(core, job, [r]);
  }
  if (job.fanIn) job.held = run.map((r) => r.seq);
  else send(core, job, run);
}

/** docs/protocol.md, `ack`: cumulative over the user's replies, or `exact` for one peer item (or a batch's). */
export function ack(core: Core, job: LiveJob, seq: number, exact: boolean): void {
  if (seq > job.rec.lastSeq) {
    throw new RoostError(
      "bad_request",
      `seq ${seq} was never sent to ${job.rec.id} (its last is ${job.rec.lastSeq})`,
    );
  }
  const batch = exact ? job.batches.get(seq) : undefined;
  if (batch) job.batches.delete(seq);
  // A cumulative ack took the follow-ups of the batches up to it: their memory goes.
  if (!exact) for (const head of job.batches.keys()) if (head <= seq) job.batches.delete(head);
  let taken = 0;
  for (const s of batch ?? [seq]) taken += core.store.ack(job.rec.id, s, exact);
  if (taken > 0) {
    job.pending -= taken;
    core.registry.changed(job, false);
    if (job.rec.role === "concierge") core.concierge.digests.taken(); // a digest owed may go now
  }
}
