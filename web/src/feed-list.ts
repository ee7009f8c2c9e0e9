/**
 * A feed of events, newest first: the events page's, a job's page's own, and a job's messages.
 * The peers' entries (a message, a handback, a spawn, a watch's notice) say who to whom: sender →
 * receiver, then the text's start.
 */
import { entryText } from "../../sdk/ts/protocol/board-view.js";
import { type FeedEntry, get } from "./api.js";
import type { Ctx } from "./ctx.js";
import { type Child, h, timeAgo } from "./dom.js";
import { displayName } from "./row-words.js";

const FEED_LIMIT = 200;

/** The entries between sessions (protocol.md, "The peer ops"): `who`/`whoId` sent, `id` received. */
export const PEER_KINDS: ReadonlySet<string> = new Set(["message", "handback", "spawn", "notice"]);

export interface FeedQuery {
  /**
   * One job's (null: every job's): the entries about it (their `id`) or done by it (their `whoId`:
   * a message it sent, a child it spawned), as the `events` op's `involving` gives them.
   */
  job: string | null;
  /** Only these kinds, picked here (the op takes no kinds); loaded from the last 1000 entries. */
  kinds?: ReadonlySet<string>;
  /** The list's name for screen readers. */
  label?: string;
  /** Called when the list has its first entry, or has none. */
  onShown?: (any: boolean) => void;
}

/** A feed, newest first: loaded once, then the live entries on top. */
export class FeedList {
  readonly el: HTMLOListElement;
  private top = 0;
  private readonly offs: (() => void)[];
  private readonly job: string | null;

  constructor(
    private readonly ctx: Ctx,
    private readonly q: FeedQuery,
  ) {
    this.job = q.job;
    this.el = h("ol", {
      class: "feed",
      "aria-label": q.label ?? (q.job ? `Events of ${q.job}` : "Events"),
      "aria-busy": "true",
    });
    this.offs = [
      ctx.live.onFeed((e) => {
        if (this.wanted(e) && e.cursor > this.top) this.add([e], true);
      }),
      // What happened while the page was away from the daemon.
      ctx.live.onConnect((again) => {
        if (again) void this.load();
      }),
    ];
    void this.load();
  }

  dispose(): void {
    for (const off of this.offs) off();
  }

  private wanted(e: FeedEntry): boolean {
    const { job, kinds } = this.q;
    if (kinds && !kinds.has(e.kind)) return false;
    return !job || e.id === job || e.whoId === job;
  }

  private async load(): Promise<void> {
    try {
      // Picking kinds here, the most the feed keeps is looked through.
      const q = new URLSearchParams({ limit: String(this.q.kinds ? 1000 : FEED_LIMIT) });
      if (this.job) q.set("involving", this.job);
      const { events } = await get<{ events: FeedEntry[] }>(`events?${q}`);
      const fresh = events
        .filter((e) => e.cursor > this.top && this.wanted(e))
        .sort((a, b) => a.cursor - b.cursor);
      this.add(fresh.slice(-FEED_LIMIT), false);
    } catch (err) {
      this.el.append(h("li", { class: "error" }, `Could not load the events: ${(err as Error).message}`));
    } finally {
      this.el.removeAttribute("aria-busy");
      const any = !!this.el.querySelector(".entry");
      if (!any && !this.el.querySelector(".none"))
        this.el.append(h("li", { class: "muted none" }, "No events yet."));
      this.q.onShown?.(any);
    }
  }

  /** Adds entries (oldest first) above the ones shown. */
  private add(entries: FeedEntry[], live: boolean): void {
    if (!entries.length) return;
    this.el.querySelector(".none")?.remove();
    for (const e of entries) {
      if (e.cursor <= this.top && live) continue;
      this.top = Math.max(this.top, e.cursor);
      this.el.prepend(this.entry(e));
    }
    while (this.el.children.length > FEED_LIMIT * 2) this.el.lastElementChild?.remove();
    if (live) this.q.onShown?.(true);
  }

  private entry(e: FeedEntry): HTMLLIElement {
    const peer = PEER_KINDS.has(e.kind);
    const schedule = e.kind === "schedule";
    return h(
      "li",
      { class: `entry k-${e.kind.replace(/[^a-z0-9-]/gi, "")}${peer ? " peer" : ""}` },
      h("span", { class: "kind" }, e.kind),
      // The job it is about: on one job's list, said only when it is another (a child it spawned).
      // A schedule's entry is about the schedule (its id), the job a run started named in its text.
      schedule
        ? h("a", { class: "job", href: "#/schedules" }, e.id)
        : e.id === "concierge" // the concierge's, while it has no job (an order, its policy)
          ? h("a", { class: "job", href: "#/concierge" }, e.id)
          : peer
            ? this.fromTo(e)
            : e.id === this.job
              ? null
              : this.jobLink(e.id, "job"),
      h("span", { class: "text" }, schedule ? this.withJobLinks(e.text) : entryText(e)),
      // A peer entry's sender is said already.
      peer ? null : h("span", { class: "who muted" }, e.who),
      timeAgo(e.at),
    );
  }

  /** A schedule's text ("nightly: started j12"), the jobs it names linked to their pages. */
  private withJobLinks(text: string): Child[] {
    return text
      .split(/\b(j\d+)\b/)
      .map((part, i) => (i % 2 === 1 ? h("a", { href: `#/jobs/${part}` }, part) : part));
  }

  /** "left (j2) → right (j3)": a message's sender and receiver (a spawn's parent and child). */
  private fromTo(e: FeedEntry): HTMLElement {
    // A notice's whoId is the session it is about (the job whose event it was), but roost sent it.
    const sender = e.kind === "notice" ? null : e.whoId;
    const from: Child = sender ? this.jobLink(sender, "from", e.who) : h("span", { class: "from" }, e.who);
    return h(
      "span",
      { class: "job from-to" },
      from,
      h("span", { class: "arrow" }, " → "),
      this.jobLink(e.id, "to"),
    );
  }

  /** A job's name and id, a link to its page (but on its own page, where it is the page's). */
  private jobLink(id: string, cls: string, said?: string): HTMLElement {
    const row = this.ctx.live.rows.get(id);
    const name = row ? displayName(row) : said;
    const text = name && name !== id ? `${name} (${id})` : id;
    return id === this.job
      ? h("span", { class: `${cls} self` }, text)
      : h("a", { class: cls, href: `#/jobs/${id}` }, text);
  }
}
