/**
 * Replies and acks in the store (docs/protocol.md, "ack" and "roost's choices"): each reply's
 * seq, taken in the transaction that saves it; the request ids kept; the replies not yet taken,
 * read once and then kept in step in memory; acks, written together.
 */
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import type { GroupCommit } from "./group-commit.js";
import type { NewReply, ReplyRecord } from "./records.js";
import { type Params, replyFromRow, replyToParams } from "./rows.js";
import type { Statements } from "./statements.js";

const ACK_FLUSH_MS = 50;

export class Replies {
  /** Each job's replies not yet taken, once read (see `pendingOf`). */
  private readonly pending = new Map<string, ReplyRecord[]>();
  /**
   * Each job's last seq taken, in the transaction under way or before: counted here, so that a
   * reply writes only its own row (not the job's too). Read from the store when first needed and
   * after any rollback (which may have taken back seqs counted here).
   */
  private readonly seqs = new Map<string, number>();
  /** Acks taken but not yet written (see `ack`). */
  private readonly acks: { jobId: string; seq: number; exact: boolean }[] = [];
  private ackTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sql: Statements,
    private readonly commits: GroupCommit,
    private readonly isOpen: () => boolean,
  ) {
    commits.onRollback(() => this.seqs.clear());
  }

  /**
   * Saves a reply: the job's next seq, the reply and its request id on its row, in one
   * transaction (the one under way, as in a group commit, else its own), so a reply answered
   * `saved` is on disk with its id. Seqs have no gaps: one rolled back is taken again. A reply
   * `handled` (a `/stop`, done by the daemon itself) is saved taken: only its id is of use. Returns the seq it took: the job's record is the caller's
   * to bring up to it once the transaction has committed (a rolled-back one took none).
   */
  add(jobId: string, reply: NewReply, handled = false): number {
    return this.commits.within(() => {
      const seq = this.lastSeq(jobId) + 1;
      const record: ReplyRecord = {
        jobId,
        seq,
        text: reply.text,
        mode: reply.mode,
        kind: reply.kind ?? null,
        requestId: reply.requestId ?? null,
        at: new Date().toISOString(),
        peer: reply.peer ?? null,
        thenStop: reply.thenStop ?? null,
        why: reply.why ?? null,
      };
      const params = replyToParams(record);
      params.acked = handled ? 1 : 0;
      this.sql.insertReply.run(params);
      this.seqs.set(jobId, seq);
      if (!handled)
        this.commits.afterCommit(() => {
          // A list read inside the transaction holds the reply already.
          const list = this.pending.get(jobId);
          if (list && (list.at(-1)?.seq ?? 0) < record.seq) list.push(record);
        });
      return record.seq;
    });
  }

  /** The job's last seq taken (0 before its first reply). */
  private lastSeq(jobId: string): number {
    const known = this.seqs.get(jobId);
    if (known !== undefined) return known;
    const row = this.sql.lastSeq.get(jobId) as { last_seq: number } | undefined;
    if (!row) throw new Error(`no job ${jobId} in the store`);
    return row.last_seq;
  }

  /**
   * A peer item goes to an agent that does not take items: from now on it is an ordinary
   * follow-up, taken by a cumulative ack. Committed before any ack that may take it (acks are
   * written later, in order); lost to a crash, it is an item again, and turned again when sent.
   */
  asFollowUp(jobId: string, seq: number): void {
    this.commits.run(() => this.sql.asFollowUp.run(jobId, seq));
    for (const r of this.pendingOf(jobId)) if (r.seq === seq) r.kind = null;
  }

  /** A terminal agent's reply was typed: taken (its request id stays on its row). */
  markTyped(jobId: string, seq: number): void {
    this.commits.run(() => this.sql.ackExact.run(jobId, seq));
    this.pending.set(
      jobId,
      this.pendingOf(jobId).filter((r) => r.seq !== seq),
    );
  }

  /**
   * The seq of the reply a request id saved, or null when the job has not seen it, or saw it before
   * its last 100 ids and has taken it (docs/protocol.md, "roost's choices": Request ids). A miss,
   * the common case, is one lookup in the index of ids; only a hit counts the ids that came after
   * it.
   */
  forRequest(jobId: string, requestId: string): number | null {
    const row = this.sql.replyForRequest.get(jobId, requestId) as { seq: number } | undefined;
    if (!row) return null;
    const keep = LIMITS.requestIdsKept;
    const { n } = this.sql.requestIdsAfter.get(jobId, row.seq, keep) as { n: number };
    if (n < keep) return row.seq;
    // Older, but still waiting (a terminal agent's follow-up, passed by the steers typed since).
    return this.pendingOf(jobId).some((r) => r.seq === row.seq) ? row.seq : null;
  }

  /** The job's replies not yet taken, oldest first. */
  pendingReplies(jobId: string): ReplyRecord[] {
    return [...this.pendingOf(jobId)];
  }

  /**
   * Reads the pending replies of these jobs in one query, and keeps them as `pendingOf` would:
   * after a restart every agent connects again at once, and each would read its own.
   */
  readPending(jobIds: string[]): void {
    if (this.commits.inTransaction) return; // what it read could yet be rolled back
    const unread = jobIds.filter((id) => !this.pending.has(id));
    const rows = this.sql.pendingRepliesOf.all(JSON.stringify(unread)) as Params[];
    for (const id of unread) this.pending.set(id, []);
    for (const r of rows.map(replyFromRow)) this.pending.get(r.jobId)?.push(r);
  }

  /**
   * Known once read: then kept in step with each reply and ack (at most 50 user replies a job).
   * A list read inside a transaction is not kept: what it holds may yet be rolled back.
   */
  private pendingOf(jobId: string): ReplyRecord[] {
    let list = this.pending.get(jobId);
    if (!list) {
      list = (this.sql.pendingReplies.all(jobId) as Params[]).map(replyFromRow);
      this.commits.afterCommit(() => {
        if (!this.pending.has(jobId)) this.pending.set(jobId, list!);
      });
    }
    return list;
  }

  /** The number of replies waiting per job, for every job that has some. */
  pendingCounts(): Map<string, number> {
    const rows = this.sql.pendingCounts.all() as { job_id: string; n: number }[];
    return new Map(rows.map((r) => [r.job_id, r.n]));
  }

  /**
   * An ack: cumulative over the user's replies up to `seq`, or one exact item. Returns how many
   * it took. Written with the other acks of the next 50 ms, in one commit: an ack lost to a crash
   * only sends its replies again, and the agent's client skips what it had finished (its
   * agent.json), so an ack need not cost a commit of its own.
   */
  ack(jobId: string, seq: number, exact: boolean): number {
    const list = this.pendingOf(jobId);
    const taken = (r: ReplyRecord) => (exact ? r.seq === seq : r.seq <= seq && r.kind === null);
    const left = list.filter((r) => !taken(r));
    const count = list.length - left.length;
    if (count === 0) return 0;
    this.pending.set(jobId, left);
    this.acks.push({ jobId, seq, exact });
    this.ackTimer ??= setTimeout(() => this.flushAcks(), ACK_FLUSH_MS);
    return count;
  }

  /** Writes the acks taken since the last time (also at close, and before a job is removed). */
  flushAcks(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    if (this.acks.length === 0 || !this.isOpen()) return;
    const acks = this.acks.splice(0);
    this.commits.run(() => {
      for (const a of acks) (a.exact ? this.sql.ackExact : this.sql.ackUpTo).run(a.jobId, a.seq);
    });
  }

  /** A job removed: its acks written first, its pending list forgotten. */
  forget(jobId: string): void {
    this.flushAcks();
    this.pending.delete(jobId);
    this.seqs.delete(jobId);
  }
}
