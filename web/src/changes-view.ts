/**
 * A job's Changes (docs/worktrees.md), on its page: what it changed as git says it (`changes`),
 * drawn by diff2html (files, unified or side by side, syntax colour; loaded when first needed, as
 * the terminal is), fetched when the page opens and again each time the job comes to rest. A
 * click on a line's number quotes it in the reply ("about `src/x.ts:40`: "); Merge lands a
 * worktree's branch, after asking.
 */
import { viewState } from "../../sdk/ts/protocol/row-state.js";
import type { Changes } from "../../sdk/ts/protocol/worktree.js";
import { ApiError, failedText, op, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import type { Layout } from "./diff-render.js";
import { append, clear, counted, h } from "./dom.js";

const LAYOUT_KEY = "roost.diffLayout";
const MOVING: ReadonlySet<string> = new Set(["working", "starting"]);

export class ChangesView {
  readonly el = h("section", { class: "changes-section", "aria-labelledby": "changes-title", hidden: true });
  private readonly summary = h("p", { class: "changes-summary muted" });
  private readonly status = h("p", { class: "changes-status", role: "status" });
  private readonly body = h("div", { class: "changes-body" });
  private readonly layoutButtons: Record<Layout, HTMLButtonElement>;
  private readonly mergeBar = h("div", { class: "merge-bar" });
  private layout: Layout =
    localStorage.getItem(LAYOUT_KEY) === "side-by-side" ? "side-by-side" : "line-by-line";
  private last: Changes | null = null;
  private row: Row | null = null;
  /** The job's word and its stat's time at the last fetch: a fetch again when the job next rests. */
  private fetchedFor: string | null = null;
  private loading = false;
  /** Asked again while a fetch was under way: one more once it is done. */
  private again = false;
  /** Its directory is in no repository: nothing to fetch, ever (its Refresh aside). */
  private noRepository = false;
  private disposed = false;
  private readonly fill: () => void;

  constructor(
    private readonly ctx: Ctx,
    private readonly id: string,
    /** Puts text into the job's reply (its form opened); false where there is no reply (ended). */
    private readonly quote: (text: string) => boolean,
  ) {
    const button = (layout: Layout, label: string) =>
      h(
        "button",
        {
          type: "button",
          class: "layout",
          "data-layout": layout,
          "aria-pressed": String(layout === this.layout),
          onclick: () => this.setLayout(layout),
        },
        label,
      );
    this.layoutButtons = {
      "line-by-line": button("line-by-line", "Unified"),
      "side-by-side": button("side-by-side", "Side by side"),
    };
    const refresh = h(
      "button",
      { type: "button", "data-action": "refresh-changes", onclick: () => void this.load() },
      "Refresh",
    );
    // Its controls join the page only once there is something to show: a job in no repository
    // has no Changes section at all, not a hidden one with buttons in it.
    this.fill = () => {
      if (this.el.childElementCount > 0) return;
      this.el.append(
        h("h2", { id: "changes-title" }, "Changes"),
        h(
          "div",
          { class: "changes-bar" },
          this.summary,
          h(
            "span",
            { class: "changes-tools" },
            this.layoutButtons["line-by-line"],
            this.layoutButtons["side-by-side"],
            refresh,
          ),
        ),
        this.mergeBar,
        this.status,
        this.body,
      );
    };
    this.body.addEventListener("click", (ev) => this.onClick(ev));
  }

  dispose(): void {
    this.disposed = true;
  }

  /** The job's row changed: fetched first now, then again each time it comes to rest. */
  update(row: Row): void {
    this.row = row;
    const word = viewState(row);
    const key = `${word}|${row.worktree?.stat?.at ?? ""}`;
    if (this.fetchedFor === null || (key !== this.fetchedFor && !MOVING.has(word) && !this.noRepository)) {
      this.fetchedFor = key;
      void this.load();
    }
    this.drawMergeBar();
  }

  private async load(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    try {
      const changes = await op<Changes>("changes", { id: this.id });
      if (this.disposed) return;
      this.last = changes;
      this.fill();
      this.el.hidden = false;
      this.status.textContent = "";
      await this.draw(changes);
    } catch (err) {
      // A job whose directory is in no repository has no changes to show: no section at all.
      if (err instanceof ApiError && err.code === "bad_request" && !this.last) {
        this.el.hidden = true;
        this.noRepository = true;
      } else {
        this.fill();
        this.el.hidden = false;
        this.status.textContent = failedText(err, "Refresh to try again");
      }
    } finally {
      this.loading = false;
    }
    if (this.again && !this.disposed) {
      this.again = false;
      await this.load();
    }
  }

  private async draw(c: Changes): Promise<void> {
    const files = counted(c.files.length, "file");
    const commits = c.commits.length ? `, ${counted(c.commits.length, "commit")}` : "";
    clear(this.summary);
    append(this.summary, [
      h("strong", null, files),
      " ",
      h("span", { class: "added" }, `+${c.added}`),
      " ",
      h("span", { class: "removed" }, `−${c.removed}`),
      `${commits} against `,
      h("code", null, c.against.slice(0, 12)),
      c.branch ? [" on ", h("code", null, c.branch)] : null,
    ]);
    clear(this.body);
    if (c.note) this.body.append(h("p", { class: "changes-note warn" }, c.note));
    if (c.commits.length)
      this.body.append(
        h(
          "ul",
          { class: "commits", "aria-label": "Commits" },
          c.commits.map((x) => h("li", null, h("code", null, x.sha.slice(0, 8)), " ", x.subject)),
        ),
      );
    if (!c.diff) {
      this.body.append(
        h("p", { class: "empty" }, c.files.length ? "No diff to show (see the files above)." : "No changes."),
      );
      return;
    }
    const target = h("div", { class: "diff" });
    this.body.append(target);
    try {
      const { renderDiff } = await import("./diff-render.js");
      if (!this.disposed) renderDiff(target, c.diff, this.layout);
    } catch (err) {
      target.textContent = `Could not load the diff view: ${(err as Error).message}`;
    }
  }

  private setLayout(layout: Layout): void {
    this.layout = layout;
    localStorage.setItem(LAYOUT_KEY, layout);
    for (const [k, b] of Object.entries(this.layoutButtons))
      b.setAttribute("aria-pressed", String(k === layout));
    if (this.last) void this.draw(this.last);
  }

  /** A click on a line's number: "about `path:line`: " into the reply. */
  private onClick(ev: MouseEvent): void {
    const cell = (ev.target as Element).closest(".d2h-code-linenumber, .d2h-code-side-linenumber");
    if (!cell) return;
    const file = cell.closest(".d2h-file-wrapper")?.querySelector(".d2h-file-name")?.textContent?.trim();
    const line = lineOf(cell);
    if (!file || line === null) return;
    // A rename shows as "old → new": the line is the new file's.
    const path = file.split(" → ").at(-1)!;
    if (!this.quote(`about \`${path}:${line}\`: `))
      this.status.textContent = "The job has ended: there is no one to reply to.";
  }

  private drawMergeBar(): void {
    const wt = this.row?.worktree;
    if (!wt || this.ctx.readOnly()) {
      clear(this.mergeBar);
      return;
    }
    if (this.mergeBar.dataset.branch === wt.branch && this.mergeBar.childElementCount) return;
    this.mergeBar.dataset.branch = wt.branch;
    this.askMerge(false);
  }

  /** The Merge button, or (asking) what it will do with Merge and Cancel. */
  private askMerge(asking: boolean): void {
    const wt = this.row?.worktree;
    if (!wt) return;
    clear(this.mergeBar);
    const into = wt.base ?? "its base branch";
    if (!asking) {
      this.mergeBar.append(
        h(
          "button",
          { type: "button", "data-action": "merge", onclick: () => this.askMerge(true) },
          `Merge into ${into}…`,
        ),
        h(
          "span",
          { class: "muted small" },
          ` branch `,
          h("code", null, wt.branch),
          wt.baseDirty ? " (its base checkout had uncommitted changes when it started)" : "",
        ),
      );
      return;
    }
    const yes = h(
      "button",
      { type: "button", class: "primary", "data-action": "merge-yes", onclick: () => void this.merge() },
      "Merge",
    );
    this.mergeBar.append(
      h(
        "span",
        null,
        "Merge ",
        h("code", null, wt.branch),
        " into ",
        h("code", null, into),
        " in ",
        h("code", null, wt.repo),
        "? Nothing is pushed. ",
      ),
      yes,
      " ",
      h(
        "button",
        { type: "button", "data-action": "merge-no", onclick: () => this.askMerge(false) },
        "Cancel",
      ),
    );
    yes.focus();
  }

  private async merge(): Promise<void> {
    this.status.textContent = "Merging…";
    try {
      const r = await op<{ into: string; commit: string; fastForward: boolean; files: string[] }>("merge", {
        id: this.id,
      });
      this.status.textContent = r.files.length
        ? `Merged into ${r.into} (${r.fastForward ? "fast-forward" : "merge commit"} ${r.commit.slice(0, 12)}; ${counted(r.files.length, "file")}).`
        : `Nothing to merge: ${r.into} has it all.`;
      this.ctx.announce(this.status.textContent);
    } catch (err) {
      this.status.textContent = failedText(err, "try again");
    }
    this.askMerge(false);
  }
}

/** The line a number cell names: the new side's, else (a removed line) the old side's. */
function lineOf(cell: Element): number | null {
  const nums = [cell.querySelector(".line-num2"), cell.querySelector(".line-num1")]
    .map((n) => n?.textContent?.trim())
    .filter((t): t is string => !!t);
  const text = nums[0] ?? cell.textContent?.trim() ?? "";
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) ? n : null;
}
