/**
 * A row's action bar: Reply, Pin, Rename, Budget…, Stop or Respawn, Remove… (asked in the bar first), and
 * ↑ / ↓ to reorder. Drawn again when what it shows changes (not on every push to its row: a Stop
 * pressed on a working row must not lose its click); the focus stays on the same button.
 */
import type { Row } from "./api.js";
import { type Child, focusKey, h, replaceKeepingFocus, Shown } from "./dom.js";
import { isBudgetStopped } from "./row-budget.js";
import { displayName, isAsleep, isRunning } from "./row-words.js";

/** What the bar acts on: its row and the row's actions. */
export interface ActionsHost {
  readonly row: Row;
  isBusy(key: string): boolean;
  replyOpen(): boolean;
  toggleReply(): void;
  togglePin(): void;
  openRename(): void;
  /** The Budget… form (budget-form.ts): the job's own budget. */
  openBudget(): void;
  /** Runs an op for the row; true when it went through. */
  act(name: string, args: Record<string, unknown>, done: string): Promise<boolean>;
  /** Moves the row by delta places; absent where rows are not ordered (a job's page). */
  move?: (id: string, delta: number) => void;
}

/** The bar's buttons' keys (their data-focus), each disabled while its action is in flight. */
const BUTTONS = [
  "reply",
  "pin",
  "rename",
  "budget",
  "stop",
  "respawn",
  "rm",
  "up",
  "down",
  "rm-yes",
  "rm-no",
];

export class RowActions {
  readonly el: HTMLDivElement;
  private confirmingRemove = false;
  private readonly shown = new Shown();

  constructor(private readonly host: ActionsHost) {
    this.el = h("div", { class: "row-actions", role: "group", "aria-label": `Actions on ${host.row.id}` });
  }

  focus(key: string): void {
    focusKey(this.el, key);
  }

  render(): void {
    const row = this.host.row;
    const host = this.host;
    const busy = BUTTONS.filter((key) => host.isBusy(key));
    const state = [isRunning(row), isAsleep(row), isBudgetStopped(row), row.pinned, host.replyOpen()];
    const confirming = this.confirmingRemove && displayName(row);
    if (!this.shown.changed([row.id, state, busy, confirming, !!host.move])) return;
    replaceKeepingFocus(this.el, this.confirmingRemove ? this.confirm(row) : this.buttons(row));
  }

  private button(key: string, label: string, onclick: () => void, extra: Record<string, string> = {}) {
    return h(
      "button",
      { type: "button", class: "act", "data-focus": key, disabled: this.host.isBusy(key), onclick, ...extra },
      label,
    );
  }

  private buttons(row: Row): (Child | Child[])[] {
    const host = this.host;
    const running = isRunning(row);
    const replyOpen = host.replyOpen();
    return [
      running
        ? this.button("reply", replyOpen ? "Hide reply" : "Reply", () => host.toggleReply(), {
            "aria-keyshortcuts": "r",
            "aria-expanded": String(replyOpen),
          })
        : null,
      this.button("pin", row.pinned ? "Unpin" : "Pin", () => host.togglePin(), {
        "aria-pressed": String(row.pinned),
      }),
      this.button("rename", "Rename", () => host.openRename()),
      this.button("budget", "Budget…", () => host.openBudget()),
      running
        ? this.button("stop", "Stop", () => void host.act("stop", { id: row.id }, "Stopping"))
        : isAsleep(row)
          ? this.button("respawn", "Wake", () => void host.act("respawn", { id: row.id }, "Woken"))
          : isBudgetStopped(row)
            ? this.button(
                "respawn",
                "Respawn",
                () => void host.act("respawn", { id: row.id }, "Respawned: it goes on past its budget today"),
                {
                  title: "Start it again: the budgets spent no longer stop it until the day ends",
                },
              )
            : this.button("respawn", "Respawn", () => void host.act("respawn", { id: row.id }, "Respawned")),
      this.button("rm", "Remove…", () => this.askRemove(true)),
      host.move ? this.reorder(row, host.move) : null,
    ];
  }

  /** ↑ and ↓ as one group, kept together at the end of the bar (and of its last line, wrapped). */
  private reorder(row: Row, move: (id: string, delta: number) => void): HTMLSpanElement {
    return h(
      "span",
      { class: "reorder" },
      this.button("up", "↑", () => move(row.id, -1), { "aria-label": "Move up", title: "Move up (Alt+↑)" }),
      this.button("down", "↓", () => move(row.id, 1), {
        "aria-label": "Move down",
        title: "Move down (Alt+↓)",
      }),
    );
  }

  private confirm(row: Row): Child[] {
    return [
      h(
        "span",
        { class: "confirm" },
        `Remove ${displayName(row)}${isRunning(row) ? " (it is still running)" : ""}?`,
      ),
      this.button("rm-yes", "Yes, remove", () => void this.remove(row), { class: "act danger" }),
      this.button("rm-no", "Cancel", () => this.askRemove(false)),
    ];
  }

  private askRemove(asking: boolean): void {
    this.confirmingRemove = asking;
    this.render();
    this.focus(asking ? "rm-no" : "rm");
  }

  private async remove(row: Row): Promise<void> {
    if (await this.host.act("rm", { id: row.id }, "Removed")) {
      this.confirmingRemove = false;
      this.render();
    }
  }
}
