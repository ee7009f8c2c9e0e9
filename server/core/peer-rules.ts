/**
 * The message rules (coordination.md, "Rules"): the same text to the same session within a
 * minute is a duplicate, not delivered; at most 30 `send`s a minute per sender. What they
 * remember is the sends of the last minute, read again from the store at start (a restart
 * forgets none of them: each item is on disk before its `send` is answered).
 */
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import type { ReplyRecord } from "../store/records.js";

interface Sent {
  from: string;
  to: string;
  text: string;
  at: number;
}

export class PeerRules {
  /** The sends of the last minute, oldest first. */
  private sent: Sent[] = [];

  /** `recent`: the store's peer items of the last minute (their text after the envelope line). */
  constructor(recent: ReplyRecord[]) {
    for (const r of recent) {
      if (r.peer?.kind !== "message") continue;
      const text = r.text.slice(r.text.indexOf("\n") + 1);
      this.sent.push({ from: r.peer.from.id, to: r.jobId, text, at: Date.parse(r.at) });
    }
  }

  /** The same text from `from` to `to` within the last minute. */
  isDuplicate(from: string, to: string, text: string, now = Date.now()): boolean {
    this.forgetBefore(now - LIMITS.duplicateMs);
    return this.sent.some((s) => s.from === from && s.to === to && s.text === text);
  }

  /** `from` has sent its 30 of the last minute; when its next may go (ms from now). */
  waitFor(from: string, now = Date.now()): number {
    this.forgetBefore(now - 60_000);
    const mine = this.sent.filter((s) => s.from === from);
    if (mine.length < LIMITS.sendsPerMinute) return 0;
    return mine[mine.length - LIMITS.sendsPerMinute]!.at + 60_000 - now;
  }

  record(from: string, to: string, text: string, now = Date.now()): void {
    this.sent.push({ from, to, text, at: now });
  }

  private forgetBefore(t: number): void {
    let i = 0;
    while (i < this.sent.length && this.sent[i]!.at <= t) i++;
    if (i > 0) this.sent.splice(0, i);
  }
}
