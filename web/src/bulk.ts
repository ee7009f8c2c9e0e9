/**
 * Bulk actions on the selected rows: Stop, Sleep, Pin, Unpin, Remove… (asked first), and Merge… (their
 * branches through the merge queue: queue-form.ts). The ops go out
 * several at once (a stop waits for its job to end: one after another, 300 would take minutes),
 * and the bar says how far they got, then what went through and what failed, and why.
 */
import { op, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { counted, h, replaceKeepingFocus, Shown } from "./dom.js";
import { canMerge, openMergeForm } from "./queue-form.js";
import { isRunning } from "./row-words.js";

/** How many ops are in flight at once: a browser opens about six connections to one server. */
const IN_FLIGHT = 6;

interface Failure {
  id: string;
  error: string;
}

/** Runs `one` for each id, `IN_FLIGHT` at a time; `progress` after each. */
export async function runAll(
  ids: string[],
  one: (id: string) => Promise<unknown>,
  progress: (done: number) => void,
): Promise<Failure[]> {
  const failures: Failure[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        await one(id);
      } catch (err) {
        failures.push({ id, error: err instanceof Error ? err.message : String(err) });
      }
      progress(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, ids.length) }, worker));
  return failures;
}

interface Action {
  key: string;
  label: string;
  /** "Stopping", "Stopped": said while it runs and once done. */
  doing: string;
  done: string;
  /** The selected rows it applies to (Stop: the running ones). */
  applies(row: Row): boolean;
  send(row: Row): Promise<unknown>;
}

const ACTIONS: Action[] = [
  {
    key: "stop",
    label: "Stop",
    doing: "Stopping",
    done: "Stopped",
    applies: isRunning,
    send: (row) => op("stop", { id: row.id }),
  },
  {
    // Stopped as idle (docs/budgets.md): the rows say "asleep", and Wake (respawn) goes on with each.
    key: "sleep",
    label: "Sleep",
    doing: "Putting to sleep",
    done: "Put to sleep",
    applies: isRunning,
    send: (row) => op("stop", { id: row.id, reason: "idle" }),
  },
  {
    key: "pin",
    label: "Pin",
    doing: "Pinning",
    done: "Pinned",
    applies: (row) => !row.pinned,
    send: (row) => op("pin", { id: row.id, pinned: true }),
  },
  {
    key: "unpin",
    label: "Unpin",
    doing: "Unpinning",
    done: "Unpinned",
    applies: (row) => row.pinned,
    send: (row) => op("pin", { id: row.id, pinned: false }),
  },
  {
    key: "rm",
    label: "Remove…",
    doing: "Removing",
    done: "Removed",
    applies: () => true,
    send: (row) => op("rm", { id: row.id }),
  },
];

const jobs = (n: number) => counted(n, "job");

export interface BulkHost {
  /** The selected rows, in the order shown. */
  selected(): Row[];
  /** Clears the selection (the bar's "Clear"). */
  clear(): void;
}

/** The bar under the rows while some are selected (sticky at the bottom of the screen). */
export class BulkBar {
  readonly el = h("div", { class: "bulk-bar", role: "region", "aria-label": "Selected jobs", hidden: true });
  private confirming = false;
  private running: { action: Action; done: number; of: number } | null = null;
  /** What the last action did: shown until the selection changes. */
  private outcome: { text: string; kind: "ok" | "error" } | null = null;
  /** What the bar shows, as last drawn: drawn again only when that changes. */
  private readonly shown = new Shown();

  constructor(
    private readonly ctx: Ctx,
    private readonly host: BulkHost,
  ) {}

  /** The user changed the selection: what the last action said is old news, a removal not asked. */
  forgetOutcome(): void {
    if (!this.running) this.outcome = null;
    this.confirming = false;
  }

  /**
   * Drawn again only when what it shows changed (dom.ts, Shown): the rows' view calls this on every
   * draw, which a selection of busy rows makes several a second.
   */
  render(): void {
    const rows = this.host.selected();
    this.el.hidden = rows.length === 0 && !this.running && !this.outcome;
    if (this.el.hidden) {
      this.shown.forget();
      return;
    }
    const shows = [
      rows.map((r) => r.id),
      ACTIONS.map((a) => rows.filter(a.applies).length),
      rows.every(canMerge),
      this.running && [this.running.action.key, this.running.done, this.running.of],
      this.confirming && rows.filter(isRunning).length,
      this.outcome,
    ];
    if (!this.shown.changed(shows)) return;
    replaceKeepingFocus(this.el, [
      h("strong", { class: "bulk-count" }, `${rows.length} selected`),
      ...(this.running ? this.progress() : this.confirming ? this.confirm(rows) : this.buttons(rows)),
      this.outcome
        ? h("span", { class: "bulk-outcome", "data-kind": this.outcome.kind }, this.outcome.text)
        : null,
    ]);
  }

  private buttons(rows: Row[]): HTMLElement[] {
    return [
      ...ACTIONS.map((a) => {
        const n = rows.filter(a.applies).length;
        return h(
          "button",
          {
            type: "button",
            class: a.key === "rm" ? "act danger" : "act",
            "data-focus": a.key,
            disabled: n === 0,
            title: n ? `${a.label.replace("…", "")} ${jobs(n)}` : null,
            onclick: () => (a.key === "rm" ? this.ask(true) : void this.run(a)),
          },
          a.label,
        );
      }),
      this.mergeButton(rows),
      h(
        "button",
        {
          type: "button",
          class: "act ghost",
          "data-focus": "clear",
          onclick: () => {
            this.forgetOutcome();
            this.host.clear();
          },
        },
        "Clear",
      ),
    ];
  }

  /** Enabled when every selected row has a worktree: the queue refuses the lot otherwise. */
  private mergeButton(rows: Row[]): HTMLElement {
    const ok = rows.length > 0 && rows.every(canMerge);
    return h(
      "button",
      {
        type: "button",
        class: "act",
        "data-focus": "merge",
        "aria-haspopup": "dialog",
        disabled: !ok,
        title: ok
          ? `Land the branches of ${jobs(rows.length)} one at a time`
          : "Only jobs with worktrees can be merged",
        onclick: () => openMergeForm(this.ctx, this.host.selected(), () => this.host.clear()),
      },
      "Merge…",
    );
  }

  private confirm(rows: Row[]): HTMLElement[] {
    const live = rows.filter(isRunning).length;
    return [
      h(
        "span",
        { class: "confirm" },
        `Remove ${jobs(rows.length)}${live ? ` (${live} still running: stopped first)` : ""}? ` +
          "Their rows, replies and transcripts go.",
      ),
      h(
        "button",
        {
          type: "button",
          class: "act danger",
          "data-focus": "rm-yes",
          onclick: () => void this.run(ACTIONS.find((a) => a.key === "rm")!),
        },
        `Yes, remove ${jobs(rows.length)}`,
      ),
      h(
        "button",
        { type: "button", class: "act", "data-focus": "rm-no", onclick: () => this.ask(false) },
        "Cancel",
      ),
    ];
  }

  private progress(): HTMLElement[] {
    const { action, done, of } = this.running!;
    return [
      h("progress", { max: String(of), value: String(done), "aria-label": `${action.doing} ${jobs(of)}` }),
      h("span", { class: "bulk-progress", role: "status" }, `${action.doing}… ${done} of ${of}`),
    ];
  }

  private ask(asking: boolean): void {
    this.confirming = asking;
    this.render();
    this.el.querySelector<HTMLElement>(`[data-focus="${asking ? "rm-no" : "rm"}"]`)?.focus();
  }

  private async run(action: Action): Promise<void> {
    const rows = this.host.selected().filter(action.applies);
    if (!rows.length || this.running) return;
    const byId = new Map(rows.map((r) => [r.id, r]));
    this.confirming = false;
    this.outcome = null;
    this.running = { action, done: 0, of: rows.length };
    this.render();
    const failures = await runAll(
      rows.map((r) => r.id),
      (id) => action.send(byId.get(id)!),
      (done) => {
        if (this.running) this.running.done = done;
        this.render();
      },
    );
    this.running = null;
    const ok = rows.length - failures.length;
    const first = failures[0];
    this.outcome = first
      ? {
          kind: "error",
          text:
            `${action.done} ${jobs(ok)}; ${failures.length} failed: ${first.id}: ${first.error}` +
            (failures.length > 1 ? ` (and ${failures.length - 1} more)` : ""),
        }
      : { kind: "ok", text: `${action.done} ${jobs(ok)}.` };
    this.ctx.announce(this.outcome.text);
    if (action.key === "rm" && !first) this.host.clear();
    this.render();
  }
}
