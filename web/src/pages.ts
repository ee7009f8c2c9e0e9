/** A job's page (`#/jobs/<id>`) and the events feed (`#/events`, `#/events?job=<id>`). */
import { type FeedEntry, get } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h, timeAgo } from "./dom.js";
import { PendingList } from "./pending.js";
import { RowView } from "./row.js";
import { displayName } from "./row-words.js";
import type { View } from "./rows.js";
import type { TerminalView } from "./terminal.js";

const FEED_LIMIT = 200;

/** A feed, newest first: loaded once, then the live entries on top. */
class FeedList {
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

export function jobView(ctx: Ctx, id: string): View {
  const el = h("section", { class: "view job-view", "aria-labelledby": "job-title" });
  const title = h("h1", { id: "job-title" }, id);
  const rowList = h("ul", { class: "rows single", "aria-label": "The job" });
  const termSection = h("section", { class: "term-section", "aria-labelledby": "term-title" });
  const missing = h(
    "p",
    { class: "empty", hidden: true },
    `There is no job ${id} (it may have been removed).`,
  );
  const feed = new FeedList(ctx, id);
  const pending = new PendingList(ctx, id);
  el.append(
    h("nav", { class: "crumbs", "aria-label": "Back" }, h("a", { href: "#/" }, "← All jobs")),
    title,
    missing,
    rowList,
    pending.el,
    termSection,
    h(
      "section",
      { class: "feed-section", "aria-labelledby": "job-events-title" },
      h(
        "h2",
        { id: "job-events-title" },
        "Events ",
        h("a", { class: "small", href: `#/events?job=${encodeURIComponent(id)}` }, "in the feed"),
      ),
      feed.el,
    ),
  );
  let view: RowView | null = null;
  let term: TerminalView | null = null;
  let termLoading = false;
  let disposed = false;
  let wasRunning = false;

  // xterm.js is most of the bundle: it is loaded when a job's page first needs it.
  const openTerminal = async () => {
    termLoading = true;
    const holder = h("p", { class: "muted" }, "Loading the terminal…");
    termSection.append(
      h(
        "h2",
        { id: "term-title" },
        "Terminal",
        ctx.readOnly() ? h("span", { class: "muted small" }, " (read-only)") : null,
      ),
      holder,
    );
    try {
      const { TerminalView } = await import("./terminal.js");
      if (disposed) return;
      term = new TerminalView(id, ctx.readOnly());
      holder.replaceWith(term.el);
    } catch (err) {
      holder.textContent = `Could not load the terminal: ${(err as Error).message}`;
    }
  };

  const render = () => {
    const row = ctx.live.rows.get(id);
    missing.hidden = !!row || ctx.live.connection !== "live";
    if (!row) {
      if (ctx.live.connection === "live") {
        view?.el.remove();
        view = null;
        pending.el.hidden = true;
      }
      return;
    }
    title.textContent = displayName(row);
    document.title = document.title.replace(/roost.*$/, `roost: ${displayName(row)}`);
    if (!view) {
      view = new RowView(row, ctx, { full: true });
      rowList.append(view.el);
    } else view.update(row);
    pending.update(row);
    const running = row.life === "running" || row.life === "starting";
    if (!termLoading) void openTerminal();
    else if (running && !wasRunning) term?.reattach();
    wasRunning = running;
  };
  render();
  const off = ctx.live.subscribe(render);
  return {
    el,
    dispose() {
      disposed = true;
      off();
      feed.dispose();
      pending.dispose();
      term?.dispose();
    },
    current: () => view,
    step: () => {},
  };
}

export function eventsView(ctx: Ctx, job: string | null): View {
  const select = h(
    "select",
    { id: "feed-filter" },
    h("option", { value: "" }, "all jobs"),
    ctx.live
      .sorted()
      .map((r) => h("option", { value: r.id, selected: r.id === job }, `${displayName(r)} (${r.id})`)),
  );
  if (job && !ctx.live.rows.has(job)) select.append(h("option", { value: job, selected: true }, job));
  select.addEventListener("change", () => {
    location.hash = select.value ? `#/events?job=${encodeURIComponent(select.value)}` : "#/events";
  });
  const feed = new FeedList(ctx, job);
  const el = h(
    "section",
    { class: "view events-view", "aria-labelledby": "events-title" },
    h(
      "div",
      { class: "view-head" },
      h("h1", { id: "events-title" }, "Events"),
      h("span", { class: "filter" }, h("label", { for: "feed-filter" }, "Job "), select),
    ),
    feed.el,
  );
  return { el, dispose: () => feed.dispose() };
}
