/** A job's page (`#/jobs/<id>`) and the events feed (`#/events`, `#/events?job=<id>`). */
import type { Row } from "./api.js";
import { ChangesView } from "./changes-view.js";
import { ClaimList } from "./claim-list.js";
import { ConversationView } from "./conversation-view.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { FeedList, PEER_KINDS } from "./feed-list.js";
import { PendingList } from "./pending.js";
import { RowView } from "./row.js";
import { displayName } from "./row-words.js";
import type { TerminalView } from "./terminal.js";
import type { View } from "./view.js";
import { WatchList } from "./watch-list.js";

export function jobView(ctx: Ctx, id: string): View {
  return new JobView(ctx, id);
}

/**
 * A job's page: its row, its pending replies, its conversation (shown once it has one), its messages (in and out: shown once it has one),
 * its watches not yet fired, its tasks of the board (shown once it has one), its changes (a job in
 * a git repository), its terminal and its events, live.
 */
class JobView implements View {
  readonly el = h("section", { class: "view job-view", "aria-labelledby": "job-title" });
  private readonly title: HTMLElement;
  private readonly rowList = h("ul", { class: "rows single", "aria-label": "The job" });
  private readonly termSection = h("section", { class: "term-section", "aria-labelledby": "term-title" });
  private readonly missing: HTMLElement;
  private readonly feed: FeedList;
  private readonly messages: FeedList;
  private readonly pending: PendingList;
  private readonly watches: WatchList;
  private readonly claims: ClaimList;
  private readonly changes: ChangesView;
  private readonly conversation: ConversationView;
  private view: RowView | null = null;
  private term: TerminalView | null = null;
  private termLoading = false;
  private disposed = false;
  /** Whether the job ran at the last render: a job started again gets its terminal again. */
  private wasRunning = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly ctx: Ctx,
    private readonly id: string,
  ) {
    this.title = h("h1", { id: "job-title" }, id);
    this.missing = h(
      "p",
      { class: "empty", hidden: true },
      `There is no job ${id} (it may have been removed).`,
    );
    this.feed = new FeedList(ctx, { job: id });
    const messages = h("section", {
      class: "messages-section",
      "aria-labelledby": "messages-title",
      hidden: true,
    });
    this.messages = new FeedList(ctx, {
      job: id,
      kinds: PEER_KINDS,
      label: `Messages of ${id}`,
      onShown: (any) => {
        messages.hidden = !any;
      },
    });
    messages.append(
      h(
        "h2",
        { id: "messages-title" },
        "Messages ",
        h("span", { class: "muted small" }, "to and from other sessions, its children, its watches' notices"),
      ),
      this.messages.el,
    );
    this.pending = new PendingList(ctx, id);
    this.watches = new WatchList(ctx);
    this.claims = new ClaimList(ctx, id);
    this.changes = new ChangesView(ctx, id, (text) => this.view?.quote(text) ?? false);
    this.conversation = new ConversationView(ctx, id);
    this.el.append(
      h("nav", { class: "crumbs", "aria-label": "Back" }, h("a", { href: "#/" }, "← All jobs")),
      this.title,
      this.missing,
      this.rowList,
      this.pending.el,
      this.conversation.el,
      messages,
      this.watches.el,
      this.claims.el,
      this.changes.el,
      this.termSection,
      this.feedSection(),
    );
    this.render();
    this.unsubscribe = ctx.live.subscribe(() => this.render());
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe();
    this.feed.dispose();
    this.messages.dispose();
    this.pending.dispose();
    this.claims.dispose();
    this.changes.dispose();
    this.conversation.dispose();
    this.term?.dispose();
  }

  current(): RowView | null {
    return this.view;
  }

  step(): void {}

  private feedSection(): HTMLElement {
    return h(
      "section",
      { class: "feed-section", "aria-labelledby": "job-events-title" },
      h(
        "h2",
        { id: "job-events-title" },
        "Events ",
        h("a", { class: "small", href: `#/events?job=${encodeURIComponent(this.id)}` }, "in the feed"),
      ),
      this.feed.el,
    );
  }

  private render(): void {
    const { live } = this.ctx;
    const row = live.rows.get(this.id);
    this.missing.hidden = !!row || live.connection !== "live";
    if (row) this.showRow(row);
    else if (live.connection === "live") {
      // Gone (removed): its row goes; a page away from the daemon keeps what it showed.
      this.view?.el.remove();
      this.view = null;
      this.pending.el.hidden = true;
      this.watches.el.hidden = true;
    }
  }

  private showRow(row: Row): void {
    this.title.textContent = displayName(row);
    document.title = document.title.replace(/roost.*$/, `roost: ${displayName(row)}`);
    if (!this.view) {
      this.view = new RowView(row, this.ctx, { full: true });
      this.rowList.append(this.view.el);
    } else this.view.update(row);
    this.pending.update(row);
    this.watches.update(row);
    this.changes.update(row);
    this.conversation.update(row);
    const running = row.life === "running" || row.life === "starting";
    if (!this.termLoading) void this.openTerminal();
    else if (running && !this.wasRunning) this.term?.reattach();
    this.wasRunning = running;
  }

  // xterm.js is most of the bundle: it is loaded when a job's page first needs it.
  private async openTerminal(): Promise<void> {
    this.termLoading = true;
    const holder = h("p", { class: "muted" }, "Loading the terminal…");
    this.termSection.append(
      h(
        "h2",
        { id: "term-title" },
        "Terminal",
        this.ctx.readOnly() ? h("span", { class: "muted small" }, " (read-only)") : null,
      ),
      holder,
    );
    try {
      const { TerminalView } = await import("./terminal.js");
      if (this.disposed) return;
      this.term = new TerminalView(this.id, this.ctx.readOnly());
      holder.replaceWith(this.term.el);
    } catch (err) {
      holder.textContent = `Could not load the terminal: ${(err as Error).message}`;
    }
  }
}

/**
 * The events page. Choosing a job filters the feed in place, the address following (replaced,
 * not routed): the select keeps the keyboard's focus, so ↓ goes on to the next job.
 */
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
  let feed = new FeedList(ctx, { job });
  select.addEventListener("change", () => {
    const chosen = select.value || null;
    history.replaceState(null, "", chosen ? `#/events?job=${encodeURIComponent(chosen)}` : "#/events");
    feed.dispose();
    const next = new FeedList(ctx, { job: chosen });
    feed.el.replaceWith(next.el);
    feed = next;
  });
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
