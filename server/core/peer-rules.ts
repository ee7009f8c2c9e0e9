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
  key: string;
  at: number;
}

/** Both rules look back one minute: the duplicates' window is the rate's. */
const WINDOW_MS = LIMITS.duplicateMs;

const keyOf = (from: string, to: string, text: string) => `${from}\n${to}\n${text}`;

export class PeerRules {
  /** The sends of the last minute, oldest first: what is forgotten, in order. */
  private readonly sent: Sent[] = [];
  /** Of those: how many of each (sender, receiver, text), and how many each sender made. */
  private readonly texts = new Map<string, number>();
  private readonly bySender = new Map<string, number[]>();

  /** `recent`: the store's peer items of the last minute (their text after the envelope line). */
  constructor(recent: ReplyRecord[]) {
    for (const r of recent) {
      if (r.peer?.kind !== "message") continue;
      const text = r.text.slice(r.text.indexOf("\n") + 1);
      this.record(r.peer.from.id, r.jobId, text, Date.parse(r.at));
    }
  }

  /** The same text from `from` to `to` within the last minute. */
  isDuplicate(from: string, to: string, text: string, now = Date.now()): boolean {
    this.forgetBefore(now - WINDOW_MS);
    return this.texts.has(keyOf(from, to, text));
  }

  /** 0 while `from` may send; else how long (ms) until its oldest send of the minute is a minute old. */
  waitFor(from: string, now = Date.now()): number {
    this.forgetBefore(now - WINDOW_MS);
    const times = this.bySender.get(from) ?? [];
    if (times.length < LIMITS.sendsPerMinute) return 0;
    return times[times.length - LIMITS.sendsPerMinute]! + WINDOW_MS - now;
  }

  record(from: string, to: string, text: string, now = Date.now()): void {
    const key = keyOf(from, to, text);
    this.sent.push({ from, key, at: now });
    this.texts.set(key, (this.texts.get(key) ?? 0) + 1);
    const times = this.bySender.get(from) ?? [];
    times.push(now);
    this.bySender.set(from, times);
  }

  private forgetBefore(t: number): void {
    while (this.sent.length > 0 && this.sent[0]!.at <= t) {
      const s = this.sent.shift()!;
      const n = (this.texts.get(s.key) ?? 1) - 1;
      if (n > 0) this.texts.set(s.key, n);
      else this.texts.delete(s.key);
      const times = this.bySender.get(s.from);
      times?.shift();
      if (times?.length === 0) this.bySender.delete(s.from);
    }
  }
}
