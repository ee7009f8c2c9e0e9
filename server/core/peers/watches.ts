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
import { isEnded, releaseHeld, viewOf } from "../jobs/index.js";
import { excerpt } from "../text.js";
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

/** A watch on the watcher's own children (`watch {children: true}`): kept with itself as its target. */
const isFanIn = (w: Pick<WatchRecord, "watcher" | "target">): boolean => w.watcher === w.target;
const FAN_IN_NAME = "its children";

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
    this.keep(watcher, { watcher: watcher.rec.id, target: target.rec.id, targetName: name, when });
    return false;
  }

  /** A watch kept (the same again renewed): at most LIMITS.watches a session. */
  private keep(watcher: LiveJob, given: Omit<WatchRecord, "at" | "expiresAt">): void {
    const same = (w: WatchRecord) => w.target === given.target && w.when === given.when;
    const mine = this.of(watcher.rec.id);
    if (!mine.some(same) && mine.length >= LIMITS.watches)
      throw new RoostError(
        "full",
        `${watcher.rec.id} has ${LIMITS.watches} watches; one must fire or expire first`,
      );
    const at = new Date();
    const w: WatchRecord = {
      ...given,
      at: at.toISOString(),
      expiresAt: new Date(at.getTime() + LIMITS.watchMs).toISOString(),
    };
    this.store.putWatch(w);
    this.drop(w);
    this.add(w);
  }

  /**
   * The children a watch on them still waits for: `handback`, those at work (not handed back with
   * `done`, not ended: the row's `waitingOn`); `ended`, those not ended.
   */
  private waitedOn(watcher: LiveJob, when: WatchRecord["when"]): string[] {
    if (when !== "ended") return watcher.waitingOn;
    return this.registry
      .all()
      .filter((j) => j.rec.parent === watcher.rec.id && (!isEnded(j) || j.respawning))
      .map((j) => j.rec.id);
  }

  /**
   * `watch {children: true}`: one notice once the last of the watcher's children is in (`handback`:
   * handed back or ended; `ended`: ended), or at once when none is at work. Meanwhile the children's
   * handbacks are held (replies.ts: batches), to come with the notice as one delivery.
   */
  async watchChildren(
    core: Core,
    watcher: LiveJob,
    when: WatchRecord["when"],
  ): Promise<{ fired: boolean; children: string[] }> {
    const children = [...this.waitedOn(watcher, when)];
    const id = watcher.rec.id;
    const w = { watcher: id, target: id, targetName: FAN_IN_NAME, when };
    if (children.length === 0) {
      await this.fire(core, { ...w, at: "", expiresAt: "" });
      return { fired: true, children };
    }
    this.keep(watcher, w);
    return { fired: false, children };
  }

  /**
   * The job changed (its report, its life) or is about to be removed: the watches on it that are now
   * so fire. `child`: the change is its `waitingOn`'s, made by that child.
   */
  changed(core: Core, jobId: string, removed = false, child?: string): void {
    const parent = this.registry.find(jobId)?.rec.parent;
    const list = this.byTarget.get(jobId);
    if (list) this.look(core, jobId, list, removed, child);
    // A child's end may be the last its parent's watch on its children waits for.
    const theirs = parent ? this.byTarget.get(parent)?.filter(isFanIn) : undefined;
    if (parent && theirs?.length) this.look(core, parent, theirs, false, jobId);
  }

  /** `child`: the child whose change this is, for a fan-in's notice (the one that came in last). */
  private look(core: Core, jobId: string, list: WatchRecord[], removed: boolean, child?: string): void {
    const job = removed ? undefined : this.registry.find(jobId);
    const now = new Date().toISOString();
    for (const w of [...list]) {
      if (w.expiresAt <= now) {
        this.forget(w);
        if (isFanIn(w) && job) releaseHeld(core, job); // what it held goes, without a notice
        continue;
      }
      const so = isFanIn(w) ? !job || this.waitedOn(job, w.when).length === 0 : isSo(w.when, job);
      if (!so) continue;
      this.forget(w);
      const fire = () =>
        void this.fire(core, w, removed, child).catch((err) =>
          console.error("roost: a watch's notice failed:", err),
        );
      // A fan-in's notice goes after the item that brought its last child in (a handback saves its
      // item after its row says done), so that the two go as one delivery.
      if (isFanIn(w)) setImmediate(fire);
      else fire();
    }
  }

  /** The watcher's `notice`: what its watched session now is. */
  private async fire(core: Core, w: WatchRecord, removed = false, child?: string): Promise<void> {
    const watcher = this.registry.find(w.watcher);
    if (!watcher) return;
    if (isFanIn(w)) return this.fireFanIn(core, watcher, w, child);
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

  /**
   * A fan-in's notice: each child, in its row's word and what it last said (those that ended
   * before the watch was set left out). By roost, caused by the child that came in last (`whoId`):
   * the one whose change fired it (not the latest-changed at firing time: a child handed back before
   * may end meanwhile), else the watcher's own (none was at work).
   */
  private async fireFanIn(core: Core, watcher: LiveJob, w: WatchRecord, child?: string): Promise<void> {
    const kids = this.registry
      .all()
      .filter((j) => j.rec.parent === watcher.rec.id && (!isEnded(j) || (j.rec.endedAt ?? "") >= w.at));
    const lines = kids.map((k) => {
      const said = k.rec.report?.error ?? k.rec.report?.summary ?? null;
      const now = k.handedBack ? "handed back" : `is ${viewOf(k)}`;
      return `- ${k.rec.id} ${JSON.stringify(this.registry.nameOf(k))} ${now}${said ? `: ${excerpt(said, 200)}` : ""}`;
    });
    const head =
      kids.length === 0
        ? "none of your children is at work"
        : `your ${kids.length === 1 ? "child is" : `${kids.length} children are`} in`;
    const text = `${head} (your watch on your children: ${w.when})${lines.length ? `\n${lines.join("\n")}` : ""}`;
    await sendItem(core, watcher, {
      peer: { kind: "notice", from: { id: watcher.rec.id, name: FAN_IN_NAME }, relation: "roost" },
      text,
      feed: {
        kind: "notice",
        text: `${head} (watch on children: ${w.when})`,
        actor: { who: ROOST.who, whoId: child ?? watcher.rec.id },
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
    const mine = this.of(watcher);
    job.watches = mine
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
      .map((w) => ({ id: w.target, name: w.targetName, when: w.when, expiresAt: w.expiresAt }));
    job.fanIn = mine.some(isFanIn);
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
