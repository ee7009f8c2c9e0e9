/**
 * A job's pending replies (`GET /api/pending?id=…`): what was sent to it that its agent has not
 * taken yet, oldest first. Fetched again only when the job's row says something changed (its
 * `pending` count or its `lastSeq`, pushed over the live socket) and after a reconnection: no polling.
 */
import { get, type PendingReply, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h, timeAgo } from "./dom.js";

/** Longer than this (in characters or lines), a reply is clipped until "more" is pressed. */
const CLIP_CHARS = 360;
const CLIP_LINES = 5;

const isLong = (text: string) => text.length > CLIP_CHARS || text.split("\n").length > CLIP_LINES;

export class PendingList {
  readonly el: HTMLElement;
  private readonly list: HTMLOListElement;
  private readonly note: HTMLParagraphElement;
  /** What the shown list was fetched for (`pending:lastSeq`), to fetch only when it changes. */
  private shownFor = "";
  /** Each fetch's number: an answer that a newer fetch overtook is dropped. */
  private fetches = 0;
  /** Replies the user opened in full, kept open across refreshes. */
  private readonly expanded = new Set<number>();
  private readonly offConnect: () => void;

  constructor(
    ctx: Ctx,
    private readonly id: string,
  ) {
    this.list = h("ol", { class: "pending-list", "aria-labelledby": "pending-title" });
    this.note = h("p", { class: "muted small", role: "status" });
    this.el = h(
      "section",
      { class: "pending-section", "aria-labelledby": "pending-title", hidden: true },
      h("h2", { id: "pending-title" }, "Pending replies"),
      this.list,
      this.note,
    );
    // Away from the daemon, replies may have been taken (or sent): the row alone may not say so.
    this.offConnect = ctx.live.onConnect((again) => {
      const row = ctx.live.rows.get(id);
      if (again && row) void this.refresh(row);
    });
  }

  /** The job's row as pushed: fetches the list again if it may have changed. */
  update(row: Row): void {
    if (`${row.pending}:${row.lastSeq}` !== this.shownFor) void this.refresh(row);
  }

  dispose(): void {
    this.offConnect();
    this.fetches++;
  }

  private async refresh(row: Row): Promise<void> {
    const n = ++this.fetches;
    this.shownFor = `${row.pending}:${row.lastSeq}`;
    if (row.pending === 0) {
      this.show([]);
      return;
    }
    try {
      const { replies } = await get<{ replies: PendingReply[] }>(`pending?id=${encodeURIComponent(this.id)}`);
      if (n === this.fetches) this.show(replies);
    } catch (err) {
      if (n !== this.fetches) return;
      this.shownFor = ""; // the next push tries again
      this.note.textContent = `Could not load the pending replies: ${(err as Error).message}`;
      this.el.hidden = false;
    }
  }

  private show(replies: PendingReply[]): void {
    this.note.textContent = "";
    this.el.hidden = replies.length === 0;
    for (const seq of this.expanded) if (!replies.some((r) => r.seq === seq)) this.expanded.delete(seq);
    this.list.replaceChildren(...replies.map((r) => this.item(r)));
  }

  private item(r: PendingReply): HTMLLIElement {
    const long = isLong(r.text);
    const text = h(
      "p",
      { class: `pending-text${long && !this.expanded.has(r.seq) ? " clipped" : ""}` },
      r.text,
    );
    text.id = `pending-${this.id}-${r.seq}`;
    const more = long
      ? h(
          "button",
          {
            type: "button",
            class: "link more",
            "aria-controls": text.id,
            "aria-expanded": String(this.expanded.has(r.seq)),
            onclick: () => {
              const open = !this.expanded.has(r.seq);
              if (open) this.expanded.add(r.seq);
              else this.expanded.delete(r.seq);
              text.classList.toggle("clipped", !open);
              more?.setAttribute("aria-expanded", String(open));
              if (more) more.textContent = open ? "less" : "more";
            },
          },
          this.expanded.has(r.seq) ? "less" : "more",
        )
      : null;
    return h(
      "li",
      { class: "pending-reply", "data-seq": r.seq },
      h(
        "div",
        { class: "pending-head" },
        h("span", { class: "seq" }, `#${r.seq}`),
        r.mode
          ? h("span", { class: `mode m-${r.mode}` }, r.mode === "followUp" ? "follow-up" : r.mode)
          : null,
        r.kind ? h("span", { class: "muted kind" }, r.kind) : null,
        h("span", { class: "spacer" }),
        timeAgo(r.at),
      ),
      text,
      more,
    );
  }
}
