/**
 * The merge queue's page (`#/queue`): each entry by number, its job (a link to its page), branch →
 * target, its state in a word and a colour, why it failed or what it waits on, the conflicting
 * files, the check's output (folded; a failed one's tail shown), the landed commit; a queued entry
 * may be cancelled. Live from the queue's store (queue-store.ts).
 */
import { QUEUE_ENDED, type QueueState } from "../../sdk/ts/protocol/queue-states.js";
import { failedText, op, type QueueEntry } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h, KeptItems, timeAgo } from "./dom.js";
import { type QueueStore, queueStore } from "./queue-store.js";
import { displayName } from "./row-words.js";
import type { View } from "./view.js";

const STATE_WORDS: Record<QueueState, string> = {
  queued: "queued",
  merging: "merging…",
  checking: "checking…",
  landing: "landing…",
  landed: "landed",
  failed: "failed",
  cancelled: "cancelled",
};

/** The lines of a failed check's output shown without a click: enough to see why. */
const TAIL_LINES = 12;

export function queueView(ctx: Ctx): View {
  return new QueueView(ctx);
}

class QueueView implements View {
  readonly el = h("section", { class: "view queue-view", "aria-labelledby": "queue-title" });
  private readonly list = h("ol", { class: "queue", "aria-label": "The merge queue's entries" });
  private readonly empty = h(
    "p",
    { class: "empty", hidden: true },
    "Nothing queued yet. On the jobs' page, select jobs that have worktrees and choose Merge….",
  );
  private readonly error = h("p", { class: "error", hidden: true });
  private readonly store: QueueStore;
  /** The entries whose output the user opened: kept open as the entries are drawn again. */
  private readonly opened = new Set<number>();
  /** Why a cancel was refused, by entry (one started meanwhile loses its Cancel anyway). */
  private readonly said = new Map<number, string>();
  /** Each entry's element, made anew only when the entry changes (dom.ts). */
  private readonly entries = new KeptItems<QueueEntry>(
    this.list,
    (e) => String(e.n),
    (e) => this.entry(e),
  );
  private readonly offs: (() => void)[];

  constructor(private readonly ctx: Ctx) {
    this.store = queueStore(ctx);
    this.el.append(
      h(
        "div",
        { class: "view-head" },
        h("h1", { id: "queue-title" }, "Merge queue"),
        h("span", { class: "muted small" }, "jobs' branches landed one at a time, each checked first"),
      ),
      this.error,
      this.empty,
      this.list,
    );
    this.offs = [this.store.subscribe(() => this.render()), ctx.live.subscribe(() => this.names())];
    this.render();
  }

  dispose(): void {
    for (const off of this.offs) off();
  }

  /**
   * Drawn again whenever the store changes (a check's output comes as it runs), each entry's
   * element made anew only when that entry changed: a Cancel pressed while another entry's check
   * prints keeps its click.
   */
  private render(): void {
    const all = this.store.sorted();
    this.error.hidden = !this.store.error;
    this.error.textContent = this.store.error ? `Could not load the queue: ${this.store.error}` : "";
    this.empty.hidden = !this.store.loaded || all.length > 0 || !!this.store.error;
    this.list.toggleAttribute("aria-busy", !this.store.loaded);
    // Newest first: what is under way and queued at the top, the history below.
    this.entries.draw(all.reverse(), (e) => [e, this.said.get(e.n)]);
  }

  /** The jobs' names follow their rows (a rename, a row that arrived after the queue). */
  private names(): void {
    for (const a of this.list.querySelectorAll<HTMLAnchorElement>("a.job[data-id]")) {
      const text = this.jobName(a.dataset.id ?? "");
      if (a.textContent !== text) a.textContent = text;
    }
  }

  private jobName(id: string): string {
    const row = this.ctx.live.rows.get(id);
    const name = row ? displayName(row) : null;
    return name && name !== id ? `${name} (${id})` : id;
  }

  private entry(e: QueueEntry): HTMLLIElement {
    return h(
      "li",
      { class: `queue-entry q-${e.state}`, "data-n": String(e.n), "aria-labelledby": `queue-${e.n}-head` },
      h(
        "div",
        { class: "queue-head", id: `queue-${e.n}-head` },
        h("span", { class: "queue-n" }, `#${e.n}`),
        h(
          "a",
          { class: "job", "data-id": e.id, href: `#/jobs/${encodeURIComponent(e.id)}` },
          this.jobName(e.id),
        ),
        h(
          "span",
          { class: "queue-branch" },
          h("code", null, e.branch),
          h("span", { "aria-label": "into" }, " → "),
          h("code", null, e.into),
        ),
        h("span", { class: `queue-state s-${e.state}` }, STATE_WORDS[e.state]),
      ),
      e.detail ? h("p", { class: "queue-detail" }, e.detail) : null,
      e.conflicts.length
        ? h(
            "p",
            { class: "queue-conflicts" },
            "Conflicting files: ",
            e.conflicts.flatMap((f, i) => [i ? ", " : "", h("code", null, f)]),
          )
        : null,
      this.landed(e),
      this.facts(e),
      this.output(e),
      e.state === "queued" && !this.ctx.readOnly() ? this.cancel(e) : null,
    );
  }

  /** The landed commit, and whether the push went. */
  private landed(e: QueueEntry): HTMLElement | null {
    if (!e.commit) return null;
    const pushed =
      e.pushed === null ? null : e.pushed ? ` · pushed to ${e.push}` : ` · not pushed to ${e.push}`;
    return h(
      "p",
      { class: "queue-commit" },
      `${e.into} is now `,
      h("code", { title: e.commit }, e.commit.slice(0, 12)),
      pushed,
    );
  }

  /** The check, and when it was queued, started and ended. */
  private facts(e: QueueEntry): HTMLElement {
    const when = e.ended ?? e.started ?? e.added;
    const verb = e.ended ? "ended" : e.started ? "started" : "queued";
    return h(
      "p",
      { class: "queue-facts muted small" },
      e.check ? ["check ", h("code", null, e.check)] : "no check",
      e.tell ? " · tells the job what to fix" : null,
      e.clean ? " · cleans up once landed" : null,
      ` · ${verb} `,
      h("time", { datetime: when, title: when }, timeAgo(when)),
    );
  }

  /** The check's output, folded; a failed check's last lines shown above the fold. */
  private output(e: QueueEntry): HTMLElement[] {
    if (!e.output) return [];
    const parts: HTMLElement[] = [];
    const failedCheck = e.state === "failed" && e.conflicts.length === 0;
    if (failedCheck)
      parts.push(
        h(
          "pre",
          { class: "queue-tail", "aria-label": `The end of the check's output of #${e.n}` },
          tail(e.output, TAIL_LINES),
        ),
      );
    const details = h(
      "details",
      { class: "queue-output", open: this.opened.has(e.n) },
      h(
        "summary",
        { "data-focus": "output" },
        failedCheck ? "The check's whole output" : "The check's output",
      ),
      h("pre", null, e.output),
    );
    details.addEventListener("toggle", () => {
      if (details.open) this.opened.add(e.n);
      else this.opened.delete(e.n);
    });
    parts.push(details);
    return parts;
  }

  private cancel(e: QueueEntry): HTMLElement {
    const status = h("span", { class: "form-status", role: "status" }, this.said.get(e.n) ?? "");
    if (this.said.has(e.n)) status.dataset.kind = "error";
    const button = h(
      "button",
      { type: "button", "data-focus": "cancel", "aria-label": `Cancel #${e.n} (${e.id})` },
      "Cancel",
    );
    button.addEventListener("click", async () => {
      button.disabled = true;
      this.said.delete(e.n);
      try {
        const { entry } = await op<{ entry: QueueEntry }>("queue-cancel", { n: e.n });
        this.store.put(entry);
      } catch (err) {
        // Said until the entry is drawn again: it may have started meanwhile (then it cannot be).
        this.said.set(e.n, failedText(err, "try again"));
        if (!QUEUE_ENDED.has(e.state)) this.render();
      }
    });
    return h("div", { class: "queue-actions" }, button, status);
  }
}

/** The last `lines` lines of `text` (its trailing newline dropped). */
function tail(text: string, lines: number): string {
  const all = text.replace(/\n$/, "").split("\n");
  return all.slice(-lines).join("\n");
}
