/**
 * The preview pane of the jobs view, on a wide screen (at least 1100 px): the row the keyboard is
 * on (j / k, a click) beside the list, live: its card (state, question with its choices, summary,
 * actions) and, for a terminal job, its terminal, for a protocol agent what it did (its events,
 * newest first: its transcript as roost has it). Enter on a row answers from here (its first
 * choice focused, else its reply opened); Esc goes back to the row in the list, which never
 * moved: the list keeps its place and its scroll. On a narrower screen there is no pane, and Enter
 * opens the job's page as ever.
 */
import type { Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { FeedList } from "./feed-list.js";
import { PREFS_EVENT, prefs } from "./prefs.js";
import { RowView } from "./row.js";
import { displayName, isRunning } from "./row-words.js";
import type { TerminalView } from "./terminal.js";

/** Wide enough for the list and the pane side by side. */
export const PREVIEW_MEDIA = "(min-width: 1100px)";
/** How long the selection rests before the pane follows it: j held down does not attach forty terminals. */
const FOLLOW_MS = 120;

export class PreviewPane {
  readonly el = h("aside", { class: "preview", "aria-label": "Preview", hidden: true });
  private readonly wide = window.matchMedia(PREVIEW_MEDIA);
  private id: string | null = null;
  private view: RowView | null = null;
  private term: TerminalView | null = null;
  private feed: FeedList | null = null;
  private timer: number | undefined;
  private disposed = false;
  private readonly off: () => void;

  /** `focusRow`: focuses a row of the list, drawn and scrolled to where the window has left it out. */
  constructor(
    private readonly ctx: Ctx,
    list: HTMLElement,
    private readonly focusRow: (id: string) => void,
  ) {
    list.addEventListener("focusin", (ev) => {
      const li = (ev.target as Element).closest<HTMLElement>("li.row[data-id]");
      if (li?.dataset.id) this.follow(li.dataset.id);
    });
    this.el.addEventListener("keydown", (ev) => {
      // Esc back to the list; in the terminal Esc is the job's (Ctrl+] leaves it first).
      if (ev.key !== "Escape" || (ev.target as Element).closest(".term")) return;
      ev.preventDefault();
      ev.stopPropagation();
      this.back();
    });
    this.wide.addEventListener("change", () => this.sync());
    window.addEventListener(PREFS_EVENT, this.sync);
    this.off = ctx.live.subscribe(() => this.refresh());
    this.sync();
  }

  /** Wanted: a wide screen, and the preview on (the toolbar's Preview). */
  private get on(): boolean {
    return this.wide.matches && prefs().preview;
  }

  /** Enter: the pane's first choice focused, else its reply opened; false where the pane is not shown. */
  answer(id: string): boolean {
    if (!this.on) return false;
    if (this.id !== id) this.show(id);
    const choice = this.el.querySelector<HTMLButtonElement>(".choices button:not(:disabled)");
    if (choice) {
      choice.focus();
      return true;
    }
    if (this.view?.openReply()) return true;
    this.el.focus();
    return true;
  }

  dispose(): void {
    this.disposed = true;
    window.removeEventListener(PREFS_EVENT, this.sync);
    window.clearTimeout(this.timer);
    this.off();
    this.clear();
  }

  private follow(id: string): void {
    if (id === this.id || !this.on) return;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.show(id), FOLLOW_MS);
  }

  /** Back to the row in the list, where it is. */
  private back(): void {
    if (this.id) this.focusRow(this.id);
  }

  private readonly sync = (): void => {
    this.el.hidden = !this.on || this.id === null;
    this.el.parentElement?.classList.toggle("previewing", !this.el.hidden);
    if (!this.on) {
      this.clear();
      this.id = null;
    }
  };

  private clear(): void {
    this.term?.dispose();
    this.feed?.dispose();
    this.term = null;
    this.feed = null;
    this.view = null;
    this.el.replaceChildren();
  }

  private show(id: string): void {
    const row = this.ctx.live.rows.get(id);
    if (!row || this.disposed || !this.on) return;
    this.clear();
    this.id = id;
    this.el.tabIndex = -1;
    this.view = new RowView(row, this.ctx, {});
    const body = h("div", { class: "preview-body" });
    this.el.append(
      h(
        "div",
        { class: "preview-head" },
        h("h2", { class: "preview-title" }, displayName(row)),
        h("a", { href: `#/jobs/${encodeURIComponent(id)}`, class: "small" }, "Open its page"),
        h("span", { class: "muted small preview-keys" }, "Enter answers · Esc back to the list"),
      ),
      h("ul", { class: "rows single", "aria-label": "The job previewed" }, this.view.el),
      body,
    );
    this.fillBody(row, body);
    this.sync();
  }

  /** A terminal job's terminal (while it runs); a protocol agent's events, as its transcript. */
  private fillBody(row: Row, body: HTMLElement): void {
    if (row.kind === "terminal" && isRunning(row) && !row.daemon) {
      body.append(h("p", { class: "muted small" }, "Loading the terminal…"));
      void import("./terminal.js").then(({ TerminalView }) => {
        if (this.id !== row.id || this.disposed || !body.isConnected) return;
        // At the job's own size: a glance never resizes the job (its page does).
        this.term = new TerminalView(row.id, this.ctx.readOnly(), false);
        body.replaceChildren(this.term.el);
      });
      return;
    }
    this.feed = new FeedList(this.ctx, { job: row.id, label: `What ${row.id} did` });
    body.append(
      h("h3", { class: "preview-sub" }, row.kind === "terminal" ? "Its events" : "What it did"),
      this.feed.el,
    );
  }

  private refresh(): void {
    if (!this.id || !this.view) return;
    const row = this.ctx.live.rows.get(this.id);
    if (!row) {
      // Removed: the pane empties until the next row is chosen.
      this.clear();
      this.id = null;
      this.sync();
      return;
    }
    this.view.update(row);
  }
}
