/**
 * Tidying the jobs view for forty rows and more (docs/hub.md, "What it shows"): ended rows (done,
 * stopped) folded away after a while (a preference: after 10 minutes, an hour, or never) into one
 * "N ended" line that shows them again; rows grouped by repository (a worktree job's base
 * checkout, else its directory) as an order beside "needs you first"; and Clear ended, which
 * removes the done and stopped rows (the `rm` op, six at a time) once asked and confirmed.
 */

import { byResources } from "../../sdk/ts/protocol/resources-view.js";
import type { ViewState } from "../../sdk/ts/protocol/row-state.js";
import { type Group, type Layout, layTrees, type Placed } from "../../sdk/ts/protocol/tree.js";
import { failedText, op, type Row } from "./api.js";
import { counted, h, Shown } from "./dom.js";
import { type Prefs, prefs } from "./prefs.js";
import { viewState } from "./row-words.js";
import type { Filter } from "./triage.js";

const ENDED: ReadonlySet<ViewState> = new Set(["done", "stopped"]);
export const isEnded = (row: Row) => ENDED.has(viewState(row));

/** The filter asks for ended rows by name: none is folded then. */
const ASKS_ENDED = new Set(["done", "stopped", "ended"]);

/** Where a row's work is: its worktree's repository, else its directory. */
export const repoOf = (row: Row) => row.worktree?.repo ?? row.cwd;
const base = (dir: string) => dir.replace(/\/+$/, "").split("/").pop() || dir;

export class RowsTidy {
  /** The "N ended" line: a button that shows the folded rows, or folds them again. */
  private readonly line = h("li", { class: "group ended-fold" });
  private open = false;
  private timer: number | undefined;

  constructor(private readonly redraw: () => void) {}

  /**
   * The rows to lay out, and the line that stands for those folded (null when none is): an ended
   * row is folded once it ended `foldEnded` minutes ago, unless the filter asks for ended rows.
   */
  fold(rows: Row[], filter: Filter, now = Date.now()): { kept: Row[]; line: HTMLLIElement | null } {
    const minutes = prefs().foldEnded;
    if (minutes <= 0 || ASKS_ENDED.has(filter.state)) return { kept: rows, line: null };
    const before = now - minutes * 60_000;
    const folded = rows.filter((r) => isEnded(r) && r.endedAt !== null && Date.parse(r.endedAt) < before);
    this.foldNext(rows, before);
    if (!folded.length) return { kept: rows, line: null };
    const label = `${counted(folded.length, "ended job")} ${this.open ? "shown" : "folded away"}`;
    this.line.replaceChildren(
      h(
        "button",
        {
          type: "button",
          class: "ghost small",
          "aria-expanded": String(this.open),
          title: `Ended more than ${minutes} min ago (the toolbar's Ended says when rows fold)`,
          onclick: () => {
            this.open = !this.open;
            this.redraw();
          },
        },
        `${this.open ? "▾" : "▸"} ${label}`,
      ),
    );
    if (this.open) return { kept: rows, line: this.line };
    const gone = new Set(folded);
    return { kept: rows.filter((r) => !gone.has(r)), line: this.line };
  }

  /** Drawn again when the next ended row is due to fold, with no push to say so. */
  private foldNext(rows: Row[], before: number): void {
    window.clearTimeout(this.timer);
    const due = rows
      .filter((r) => isEnded(r) && r.endedAt !== null && Date.parse(r.endedAt) >= before)
      .map((r) => Date.parse(r.endedAt!) - before);
    if (due.length) this.timer = window.setTimeout(this.redraw, Math.min(...due) + 50);
  }

  dispose(): void {
    window.clearTimeout(this.timer);
  }
}

/** The rows as trees (tree.ts), grouped by state (needs you first and by repository) or in your order. */
export function laidOut(
  rows: Row[],
  all: ReadonlyMap<string, Row>,
  order: Prefs["order"],
  folded: ReadonlySet<string>,
): Layout {
  // By CPU or memory: the rows sorted so, then laid as your order lays them (each list as given).
  if (order === "cpu" || order === "mem") return layTrees(byResources(rows, order), all, "mine", folded);
  const trees = layTrees(rows, all, order === "mine" ? "mine" : "state", folded);
  return order === "repo" ? byRepository(trees) : trees;
}

/**
 * The layout grouped by repository: each root with its tree, in the groups' order of first
 * appearance (the most urgent first, as laid), each group headed by its repository's name and how
 * many rows it holds. The heading's word is the repository's, not a state's.
 */
export function byRepository(laid: Layout): Layout {
  const trees: Placed[][] = [];
  for (const p of laid.placed) {
    if (p.depth === 0 || !trees.length) trees.push([p]);
    else trees.at(-1)!.push(p);
  }
  const groups = new Map<string, Placed[][]>();
  for (const t of trees) {
    const key = repoOf(t[0]!.row);
    const list = groups.get(key);
    if (list) list.push(t);
    else groups.set(key, [t]);
  }
  const placed: Placed[] = [];
  const heads = new Map<string, Group>();
  for (const [key, ts] of groups) {
    const rows = ts.flat();
    // A heading says a word: here the repository's name, where a state's would be.
    heads.set(rows[0]!.row.id, { state: `⎇ ${base(key)}` as ViewState, count: rows.length });
    placed.push(...rows);
  }
  return { placed, groups: heads };
}

/** Clear ended: in the toolbar while there are ended rows; asks, naming the count, then removes them. */
export class ClearEnded {
  readonly el = h("span", { class: "clear-ended" });
  private asking = false;
  private busy = false;
  private said = "";
  private readonly drawn = new Shown();

  constructor(private readonly rows: () => Row[]) {}

  update(): void {
    const ended = this.ended();
    if (!this.drawn.changed([ended.length, this.asking, this.busy, this.said])) return;
    this.el.hidden = !ended.length && !this.said;
    const status = this.said ? h("span", { class: "muted small", role: "status" }, this.said) : null;
    if (!this.asking || !ended.length) {
      this.el.replaceChildren(
        ended.length
          ? h(
              "button",
              {
                type: "button",
                class: "ghost small",
                "data-action": "clear-ended",
                onclick: () => this.ask(true),
              },
              "Clear ended…",
            )
          : "",
        status ?? "",
      );
      return;
    }
    this.el.replaceChildren(
      h("span", { class: "confirm" }, `Remove ${counted(ended.length, "ended job")} (done and stopped)? `),
      h(
        "button",
        { type: "button", class: "danger small", disabled: this.busy, onclick: () => void this.clear() },
        "Remove",
      ),
      " ",
      h(
        "button",
        { type: "button", class: "small", disabled: this.busy, onclick: () => this.ask(false) },
        "Keep",
      ),
      status ?? "",
    );
    if (!this.busy) this.el.querySelector<HTMLButtonElement>("button.danger")?.focus();
  }

  private ended(): Row[] {
    return this.rows().filter(isEnded);
  }

  private ask(on: boolean): void {
    this.asking = on;
    this.said = "";
    this.update();
  }

  /** Six at a time, as the bulk bar's: a stop may wait for its job, and an rm stops first. */
  private async clear(): Promise<void> {
    const ids = this.ended().map((r) => r.id);
    this.busy = true;
    this.said = `Removing ${counted(ids.length, "job")}…`;
    this.update();
    const refused: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        try {
          await op("rm", { id });
        } catch (err) {
          refused.push(`${id}: ${failedText(err, "")}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(6, ids.length) }, worker));
    this.busy = false;
    this.asking = false;
    const removed = ids.length - refused.length;
    this.said = `Removed ${counted(removed, "job")}${refused.length ? `; not removed: ${refused.join("; ")}` : "."}`;
    this.update();
  }
}
