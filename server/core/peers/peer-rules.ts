/**
 * The peers' rules of a minute (docs/protocol.md, "The peer ops": Rules): the same text to the same
 * session within a minute is a duplicate, not delivered; at most 30 `send`s a minute per sender; at
 * most 30 `spawn`s a minute per parent (the live-children limit counts only the living: a child
 * that exits at once would let a session make rows without end). What they remember is the last
 * minute, read again at start (a restart forgets none of it: each item, each child, is on disk
 * before its op is answered).
 */
import { LIMITS } from "../../../sdk/ts/protocol/index.js";
import type { JobRecord, ReplyRecord } from "../../store/records.js";

/** Every rule looks back one minute: the duplicates' window is the rates'. */
const WINDOW_MS = LIMITS.duplicateMs;

const keyOf = (from: string, to: string, text: string) => `${from}\n${to}\n${text}`;

/** What happened in the last minute, by key: how many times, and when the next may under a limit. */
class LastMinute {
  /** Oldest first: what is forgotten, in order. */
  private readonly events: { key: string; at: number }[] = [];
  private readonly byKey = new Map<string, number[]>();

  count(key: string, now: number): number {
    this.forgetBefore(now - WINDOW_MS);
    return this.byKey.get(key)?.length ?? 0;
  }

  /** 0 while `key` is under `limit`; else how long (ms) until its oldest of the minute is a minute old. */
  waitFor(key: string, limit: number, now: number): number {
    this.forgetBefore(now - WINDOW_MS);
    const times = this.byKey.get(key) ?? [];
    if (times.length < limit) return 0;
    return times[times.length - limit]! + WINDOW_MS - now;
  }

  add(key: string, at: number): void {
    this.events.push({ key, at });
    const times = this.byKey.get(key) ?? [];
    times.push(at);
    this.byKey.set(key, times);
  }

  private forgetBefore(t: number): void {
    while (this.events.length > 0 && this.events[0]!.at <= t) {
      const { key } = this.events.shift()!;
      const times = this.byKey.get(key);
      times?.shift();
      if (times?.length === 0) this.byKey.delete(key);
    }
  }
}

export class PeerRules {
  /** By (sender, receiver, text). */
  private readonly texts = new LastMinute();
  /** By sender. */
  private readonly sends = new LastMinute();
  /** By parent. */
  private readonly spawns = new LastMinute();

  /**
   * `recent`: the store's peer items of the last minute (their text after the envelope line);
   * `jobs`: the jobs as loaded, whose children made in the last minute count for their parents.
   */
  constructor(recent: ReplyRecord[], jobs: readonly JobRecord[] = []) {
    for (const r of recent) {
      if (r.peer?.kind !== "message") continue;
      const text = r.text.slice(r.text.indexOf("\n") + 1);
      this.record(r.peer.from.id, r.jobId, text, Date.parse(r.at));
    }
    const since = Date.now() - WINDOW_MS;
    const children = jobs.filter((j) => j.parent !== null && Date.parse(j.createdAt) > since);
    for (const j of children.sort((a, b) => a.createdAt.localeCompare(b.createdAt)))
      this.spawned(j.parent!, Date.parse(j.createdAt));
  }

  /** The same text from `from` to `to` within the last minute. */
  isDuplicate(from: string, to: string, text: string, now = Date.now()): boolean {
    return this.texts.count(keyOf(from, to, text), now) > 0;
  }

  /** 0 while `from` may send; else how long (ms) until it may. */
  waitFor(from: string, now = Date.now()): number {
    return this.sends.waitFor(from, LIMITS.sendsPerMinute, now);
  }

  record(from: string, to: string, text: string, now = Date.now()): void {
    this.texts.add(keyOf(from, to, text), now);
    this.sends.add(from, now);
  }

  /** 0 while `parent` may spawn; else how long (ms) until it may. */
  spawnWait(parent: string, now = Date.now()): number {
    return this.spawns.waitFor(parent, LIMITS.spawnsPerMinute, now);
  }

  spawned(parent: string, now = Date.now()): void {
    this.spawns.add(parent, now);
  }
}
