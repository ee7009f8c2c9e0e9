/**
 * `reply` (protocol.md, "reply"; "roost's choices": Request ids): the user's answer to a job, saved
 * first (its seq, text and request id in one commit), then delivered on the job's reporting
 * connection (replies.ts), or typed into a terminal agent (typist.ts), or the ended job started
 * again for it.
 */
import { LIMITS, type OpArgs, type OpResult, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { Actor } from "../feed.js";
import { excerpt } from "../text.js";
import { answered, mustStillAsk } from "./asked.js";
import { isEnded, stop } from "./lifecycle.js";
import { deliverEvent, releaseHeld } from "./replies.js";
import { start } from "./start.js";
import { typePending } from "./typist.js";

/**
 * `why`: the feed entry's (the concierge's answer in the user's place says why it gave it).
 * `answer`: the concierge answered in the user's place: its reason is kept on the reply and goes
 * with it (`answeredBy: "concierge"`, `why`), so that the agent knows who answered.
 */
export async function reply(
  core: Core,
  args: OpArgs<"reply">,
  actor: Actor,
  why?: string,
  answer?: { why: string },
): Promise<OpResult<"reply">> {
  const job = core.registry.get(args.id);
  const rec = job.rec;
  const requestId = args.requestId;
  if (requestId) {
    const first = job.repliesInFlight.get(requestId); // saved in this turn's commit, not yet answered
    if (first) {
      await first.catch(() => {});
      return { duplicate: true, saved: true };
    }
    const seq = core.store.replyForRequest(rec.id, requestId);
    if (seq !== null) {
      // Taken once: a resend is not queued again, but a job that was to be started for it is
      // (its reply still waits: the start was lost). One the agent took needs no start.
      const waiting = seq > 0 && core.store.pendingReplies(rec.id).some((r) => r.seq === seq);
      if (waiting && isEnded(job)) await start(core, job);
      return { duplicate: true, saved: true };
    }
  }
  // Checked after the request id: a resend of an answer that was taken is its duplicate, not a conflict.
  mustStillAsk(job, args.ifAsked);
  if (args.text.trim() === "/stop") {
    answered(job);
    // Saved as a reply handled at once, with its request id, so that a resend is a duplicate.
    const seq = await core.store.commitSoon(() => {
      const taken = core.store.addReply(rec.id, { text: "/stop", mode: null, requestId }, true);
      core.store.updateJob(rec); // its `asked` with the reply, for a restart
      core.feed.record(rec.id, "reply", "/stop", actor);
      return taken;
    });
    rec.lastSeq = Math.max(rec.lastSeq, seq);
    await stop(core, job, actor);
    return { saved: true, stopped: true };
  }
  if (args.text.startsWith("/") && rec.launch.protocol && job.link === null) {
    throw new RoostError(
      "busy",
      `${rec.id}'s agent is not connected; a command (${excerpt(args.text, 40)}) means something only live: send it again once the row says connected`,
    );
  }
  if (job.pending >= LIMITS.pendingReplies) {
    // An ended job full of replies would stay so (only a reply starts it): it is started for them.
    if (isEnded(job)) {
      await start(core, job);
      throw new RoostError(
        "full",
        `${rec.id} has ${job.pending} replies waiting and had ended: it was started again to take them; send this again shortly`,
      );
    }
    throw new RoostError(
      "full",
      `${rec.id} has ${job.pending} replies waiting; the agent must take some first`,
    );
  }
  job.pending++; // counted now, so that `full` holds for the other replies of this turn
  answered(job); // now, so that a second answer of this turn drawn for the same question is refused
  // The reply and its feed entry, in the commit that the replies of this turn share.
  const saved = core.store.commitSoon(() => {
    if (core.registry.find(rec.id) !== job)
      throw new RoostError("not_found", `${rec.id} was removed meanwhile`);
    // A terminal agent's reply is typed by roost: a crash between its save and its typing types
    // it once after the restart, and a resend meanwhile finds its id on the reply.
    const typed = !rec.launch.protocol && job.link === null;
    const seq = core.store.addReply(rec.id, {
      text: args.text,
      mode: args.mode ?? null,
      requestId,
      why: answer?.why ?? null,
    });
    core.store.updateJob(rec); // its `asked` in the reply's commit: a restart keeps it
    core.feed.record(rec.id, "reply", excerpt(args.text), actor, why);
    return { seq, typed };
  });
  if (requestId) job.repliesInFlight.set(requestId, saved);
  let seq: number;
  let typed: boolean;
  try {
    ({ seq, typed } = await saved);
  } catch (err) {
    job.pending--;
    throw err;
  } finally {
    if (requestId) job.repliesInFlight.delete(requestId);
  }
  // Committed: the seq is the job's now (a write that failed took none).
  rec.lastSeq = Math.max(rec.lastSeq, seq);
  job.suggested = null; // answered: the concierge's suggestion is past
  core.registry.changed(job, false);
  if (isEnded(job)) {
    await start(core, job); // a reply to an ended job starts it again; it is delivered once it reports
  } else if (job.link) {
    releaseHeld(core, job); // items held before it go first: the agent takes them in their order
    job.link.send(
      deliverEvent({
        jobId: rec.id,
        seq,
        text: args.text,
        mode: args.mode ?? null,
        why: answer?.why ?? null,
      }),
    );
  } else if (typed) {
    await typePending(core, job);
  }
  return { saved: true, seq };
}
