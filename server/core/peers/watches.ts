/**
 * Watches (docs/protocol.md, `watch`): a session asks to be told once, by a `notice` item, when
 * another is next idle (it stopped: done, a question, failed, its prompt waiting, stopped,
 * removed) or has ended (exited, stopped, removed). Kept in the store across restarts, until
 * they fire or expire (12 hours); at most 20 a session. The watcher's row lists those not fired
 * (`watches`), kept here in step.
 */
import { LIMITS, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { WatchRecord } from "../../store/records.js";
import type { Store } from "../../store/store.js";
import type { Core } from "../core.js";
import { ROOST } from "../feed.js";
import type { LiveJob, Registry } from "../jobs/index.js";
import { isEnded, viewOf } from "../jobs/index.js";
import { sendItem } from "./peer-items.js";

/** What `idle` waits for: any stop of the session's (its row's word, `viewState`). */
const STOPPED: ReadonlySet<string> = new Set(["blocked", "failed", "your turn", "done", "stopped"]);

/**
 * Whether what `when` waits for is so now (`removed`: the job is gone). `idle` is a rest the job
 * came to: not `starting` (a protocol agent before its first turn), nor `waiting` on its children.
 */
export function isSo(when: WatchRecord["when"], job: LiveJob | undefined): boolean {
  if (!job) return true;
  if (when === "ended") return isEnded(job);
  return STOPPED.has(viewOf(job));
}

export class Watches {
  /** By the watched job's id: most jobs have none, and a change of theirs costs one lookup. */
  private readonly byTarget = new Map<string, WatchRecord[]>();

  /**
   * The store's watches; the expired ones are dropped from it. What fires a watch (a notice, sent as
   * any peer item is) is the core's: `watch` and `changed` are handed it by their callers.
   */
  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
  ) {
    const now = new Date().toISOString();
    for (const w of store.watches()) {
      if (w.expiresAt <= now) store.removeWatch(w);
      else this.add(w);
    }
  }

  /** A session's watches. */
  of(watcher: string): WatchRecord[] {
    return [...this.byTarget.values()].flat().filter((w) => w.watcher === watcher);
  }

  /**
   * Keeps a watch, or (already so) fires it at once. The same watch again renews it. Returns
   * whether it fired.
   */
  async watch(core: Core, watcher: LiveJob, target: LiveJob, when: WatchRecord["when"]): Promise<boolean> {
    const name = this.registry.nameOf(target);
    if (isSo(when, target)) {
      await this.fire(core, {
        watcher: watcher.rec.id,
        target: target.rec.id,
        targetName: name,
        when,
        at: "",
        expiresAt: "",
      });
      return true;
    }
    const same = (w: WatchRecord) => w.target === target.rec.id && w.when === when;
    const mine = this.of(watcher.rec.id);
    if (!mine.some(same) && mine.length >= LIMITS.watches)
      throw new RoostError(
        "full",
        `${watcher.rec.id} has ${LIMITS.watches} watches; one must fire or expire first`,
      );
    const at = new Date();
    const w: WatchRecord = {
      watcher: watcher.rec.id,
      target: target.rec.id,
      targetName: name,
      when,
      at: at.toISOString(),
      expiresAt: new Date(at.getTime() + LIMITS.watchMs).toISOString(),
    };
    this.store.putWatch(w);
    this.drop(w);
    this.add(w);
    return false;
  }

  /** The job changed (its report, its life) or is about to be removed: the watches on it that are now so fire. */
  changed(core: Core, jobId: string, removed = false): void {
    const list = this.byTarget.get(jobId);
    if (!list) return;
    const job = removed ? undefined : this.registry.find(jobId);
    const now = new Date().toISOString();
    for (const w of [...list]) {
      if (w.expiresAt <= now) {
        this.forget(w);
        continue;
      }
      if (!isSo(w.when, job)) continue;
      this.forget(w);
      void this.fire(core, w, removed).catch((err) => console.error("roost: a watch's notice failed:", err));
    }
  }

  /** The watcher's `notice`: what its watched session now is. */
  private async fire(core: Core, w: WatchRecord, removed = false): Promise<void> {
    const watcher = this.registry.find(w.watcher);
    if (!watcher) return;
    const target = removed ? undefined : this.registry.find(w.target);
    // In the word its row shows (`view`): "is blocked", "is your turn" (never "done" for one still
    // running); or "is removed".
    const now = `is ${target ? viewOf(target) : "removed"}`;
    const said =
      target?.rec.report?.question ?? target?.rec.report?.error ?? target?.rec.report?.summary ?? null;
    const text = `${w.target} ${JSON.stringify(w.targetName)} ${now}${said ? `: ${said}` : ""} (your watch: ${w.when})`;
    await sendItem(core, watcher, {
      peer: { kind: "notice", from: { id: w.target, name: w.targetName }, relation: "roost" },
      text,
      // By roost, caused by the watched session: the entry carries its id (`whoId`).
      feed: {
        kind: "notice",
        text: `${w.targetName} ${now} (watch: ${w.when})`,
        actor: { who: ROOST.who, whoId: w.target },
      },
      by: null,
    });
  }

  private add(w: WatchRecord): void {
    const list = this.byTarget.get(w.target) ?? [];
    list.push(w);
    this.byTarget.set(w.target, list);
    this.showOn(w.watcher);
  }

  private drop(w: Pick<WatchRecord, "watcher" | "target" | "when">): void {
    const list = this.byTarget.get(w.target);
    if (!list) return;
    const left = list.filter((x) => !(x.watcher === w.watcher && x.when === w.when));
    if (left.length === list.length) return;
    if (left.length > 0) this.byTarget.set(w.target, left);
    else this.byTarget.delete(w.target);
    this.showOn(w.watcher);
  }

  /** The watcher's row lists its watches as they now are (a new array: rows pushed keep theirs). */
  private showOn(watcher: string): void {
    const job = this.registry.find(watcher);
    if (!job) return;
    job.watches = this.of(watcher)
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
      .map((w) => ({ id: w.target, name: w.targetName, when: w.when, expiresAt: w.expiresAt }));
    this.registry.noted(job, false);
  }

  private forget(w: WatchRecord): void {
    this.drop(w);
    this.store.removeWatch(w);
  }

  /** A watcher removed: its watches go with it (the store's cascade removed their rows). */
  watcherRemoved(watcher: string): void {
    for (const w of this.of(watcher)) this.drop(w);
  }
}
