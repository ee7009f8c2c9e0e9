/**
 * Rows that hold still under the pointer (docs/hub.md, "Answering"). Answering a row changes its
 * state, and triage would move it at once: a second click a moment later would land on the row
 * that took its place, an answer to a question the user never read. So from the moment a row is
 * answered here, the list keeps the order it had (the rows' own text still changes in place, new
 * rows come at its end), and the answered row is marked "answered", its choices disabled (even
 * those of a question it asks next): a second click on it does nothing. The hold ends once the
 * pointer is off the list and SETTLE_MS have passed since the last answer; then the list is drawn
 * as it is. Keyboard focus goes on to the next row that needs the user.
 */

import { needsYou } from "../../sdk/ts/protocol/row-state.js";
import type { Group, Placed } from "../../sdk/ts/protocol/tree.js";
import type { Row } from "./api.js";

/** How long an answered row stays in its place once the pointer is off the list. */
export const SETTLE_MS = 1500;

/** A layout of the list: its rows in order, and the state groups' headings by the row each begins. */
export interface Laid {
  placed: Placed[];
  groups: Map<string, Group>;
}

export class RowsHold {
  /** The rows answered from this page, while held. */
  private readonly held = new Set<string>();
  /** The layout when the hold began: what the list keeps while it holds. */
  private frozen: Laid | null = null;
  private lastAnswer = 0;
  private timer: number | undefined;
  /** A touch leaves `:hover` on what it tapped: for a finger, the settle alone ends the hold. */
  private touch = false;

  /** `release`: the hold is over, draw the list as it is. */
  constructor(
    private readonly list: HTMLElement,
    private readonly release: () => void,
  ) {
    list.addEventListener("pointerleave", () => this.check());
    list.addEventListener("pointerdown", (ev) => {
      this.touch = ev.pointerType === "touch";
    });
  }

  /** A row is being answered, in the layout drawn (`laid`). */
  answering(id: string, laid: Laid): void {
    this.frozen ??= laid;
    this.held.add(id);
    this.lastAnswer = performance.now();
    this.check();
  }

  /** The answer did not go (refused, failed): the row shows what it is now at once. */
  letGo(id: string): void {
    if (!this.held.delete(id)) return;
    if (this.held.size === 0) this.end();
    else this.release();
  }

  isHeld(id: string): boolean {
    return this.held.has(id);
  }

  /** Whether the list keeps an order of its own now. */
  get holding(): boolean {
    return this.frozen !== null;
  }

  /**
   * The layout to draw: `fresh` when nothing is held; else the frozen order, each row as it is now
   * (those gone or filtered out left out), then the rows that came since, as `fresh` has them.
   */
  arrange(fresh: Laid): Laid {
    if (!this.frozen) return fresh;
    const now = new Map(fresh.placed.map((p) => [p.row.id, p]));
    const placed: Placed[] = [];
    for (const p of this.frozen.placed) {
      const cur = now.get(p.row.id);
      if (!cur) continue;
      placed.push({ ...p, row: cur.row });
      now.delete(p.row.id);
    }
    placed.push(...now.values());
    const groups = new Map([...this.frozen.groups].filter(([id]) => placed.some((p) => p.row.id === id)));
    return { placed, groups };
  }

  /**
   * The row the keyboard goes to after `id` was answered: the next one shown that needs the user
   * (and is not held), from `id` on, round to the top.
   */
  nextNeeding(shown: Row[], id: string): string | null {
    const at = shown.findIndex((r) => r.id === id);
    for (let i = 1; i <= shown.length; i++) {
      const r = shown[(at + i) % shown.length]!;
      if (r.id !== id && !this.held.has(r.id) && needsYou(r)) return r.id;
    }
    return null;
  }

  /** Ends the hold once the pointer is off the list and the settle is over; else looks again then. */
  private check(): void {
    window.clearTimeout(this.timer);
    if (this.held.size === 0) return;
    if (!this.touch && this.list.matches(":hover")) return; // pointerleave looks again
    const left = SETTLE_MS - (performance.now() - this.lastAnswer);
    if (left > 0) {
      this.timer = window.setTimeout(() => this.check(), left);
      return;
    }
    this.end();
  }

  private end(): void {
    window.clearTimeout(this.timer);
    this.held.clear();
    this.frozen = null;
    this.release();
  }
}
