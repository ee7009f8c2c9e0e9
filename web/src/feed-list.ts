/** A feed of events, newest first: the events page's, and a job's page's own. */
import { type FeedEntry, get } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h, timeAgo } from "./dom.js";
import { displayName } from "./row-words.js";

const FEED_LIMIT = 200;

/** A feed, newest first: loaded once, then the live entries on top. */
export class FeedList {
  readonly el: HTMLOListElement;
  private top = 0;
  private readonly offs: (() => void)[];

  constructor(
    private readonly ctx: Ctx,
    private readonly job: string | null,
  ) {
    this.el = h("ol", {
      class: "feed",
      "aria-label": job ? `Events of ${job}` : "Events",
      "aria-busy": "true",
    });
    this.offs = [
      ctx.live.onFeed((e) => {
        if ((!job || e.id === job) && e.cursor > this.top) this.add([e], true);
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

  private async load(): Promise<void> {
    try {
      const q = new URLSearchParams({ limit: String(FEED_LIMIT) });
      if (this.job) q.set("id", this.job);
      const { events } = await get<{ events: FeedEntry[] }>(`events?${q}`);
      const fresh = events.filter((e) => e.cursor > this.top).sort((a, b) => a.cursor - b.cursor);
      this.add(fresh, false);
    } catch (err) {
      this.el.append(h("li", { class: "error" }, `Could not load the events: ${(err as Error).message}`));
    } finally {
      this.el.removeAttribute("aria-busy");
      if (!this.el.querySelector(".entry"))
        this.el.append(h("li", { class: "muted none" }, "No events yet."));
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
  }

  private entry(e: FeedEntry): HTMLLIElement {
    const row = this.ctx.live.rows.get(e.id);
    return h(
      "li",
      { class: `entry k-${e.kind.replace(/[^a-z0-9-]/gi, "")}` },
      h("span", { class: "kind" }, e.kind),
      this.job
        ? null
        : h("a", { class: "job", href: `#/jobs/${e.id}` }, row ? `${displayName(row)} (${e.id})` : e.id),
      h("span", { class: "text" }, e.text),
      h("span", { class: "who muted" }, e.who),
      timeAgo(e.at),
    );
  }
}
