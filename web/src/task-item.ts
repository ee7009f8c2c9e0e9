/**
 * One task on the board page: its id and title, its state (an open one that waits on another is
 * `blocked`), what it waits on, who added, holds, did or was sent it, its detail and result; and
 * for a token that may act, Assign (to a live session) and Drop (asked first). Updated in place,
 * so a choice half made (the session picked, Drop asked) survives the board's pushes.
 */
import { type TaskView, taskView, waitingOn } from "../../sdk/ts/protocol/board-view.js";
import { type BoardTask, failedText, op } from "./api.js";
import type { Ctx } from "./ctx.js";
import { type Child, h, replaceKeepingFocus, Shown, timeAgo } from "./dom.js";
import { displayName, isRunning } from "./row-words.js";

/** A state's badge class: the rows' tones, so a colour means the same on every page. */
const BADGE: Record<TaskView, string> = {
  open: "b-turn",
  blocked: "b-attention",
  claimed: "b-working",
  done: "b-done",
  failed: "b-failed",
  dropped: "b-ended",
};

/** A session as a link to its page: its name as the page knows it now, else as the task says. */
function sessionLink(ctx: Ctx, s: { id: string; name: string }): HTMLElement {
  const row = ctx.live.rows.get(s.id);
  return h(
    "a",
    { class: "who", href: `#/jobs/${encodeURIComponent(s.id)}` },
    row ? displayName(row) : s.name || s.id,
  );
}

export class TaskItem {
  readonly el: HTMLLIElement;
  private readonly head = h("div", { class: "task-head" });
  private readonly body = h("div", { class: "task-body" });
  private readonly actions = h("div", { class: "task-actions", role: "group" });
  private readonly status = h("span", { class: "row-status", role: "status" });
  private task: BoardTask;
  private confirmingDrop = false;
  private busy = false;
  /** The session chosen in Assign's list, kept across redraws. */
  private chosen = "";
  private readonly drawnActions = new Shown();

  constructor(
    private readonly ctx: Ctx,
    task: BoardTask,
  ) {
    this.task = task;
    this.el = h("li", { class: "task", "data-id": String(task.id), id: `task-${task.id}` });
    this.actions.setAttribute("aria-label", `Actions on task ${task.id}`);
    this.el.append(this.head, this.body, this.actions, this.status);
  }

  update(task: BoardTask, board: readonly BoardTask[]): void {
    this.task = task;
    const view = taskView(task, board);
    // What the last action said is about the task as it was: once it moved on, it is old news.
    if (this.el.dataset.state && this.el.dataset.state !== view && !this.busy) this.say("", "ok");
    this.el.dataset.state = view;
    this.head.replaceChildren(
      h("span", { class: `badge ${BADGE[view]}` }, view),
      h("span", { class: "task-id" }, `#${task.id}`),
      h("span", { class: "task-title" }, task.title),
    );
    this.body.replaceChildren(...this.lines(task, board));
    this.renderActions(view);
  }

  private lines(t: BoardTask, board: readonly BoardTask[]): HTMLElement[] {
    const lines: HTMLElement[] = [];
    if (t.detail) lines.push(h("p", { class: "task-detail" }, t.detail));
    if (t.after.length) {
      const waits = new Set(waitingOn(t, board));
      lines.push(
        h(
          "p",
          { class: "task-after" },
          waits.size && t.state === "open" ? h("strong", { class: "waits" }, "waits on ") : "after ",
          ...t.after.flatMap((id, i) => [
            i ? ", " : "",
            h(
              "a",
              { href: `#/board?task=${id}`, class: waits.has(id) ? "pending" : "settled" },
              `#${id}`,
              waits.has(id) ? "" : " ✓",
            ),
          ]),
        ),
      );
    }
    const who: Child[] = [];
    if (t.owner) {
      const did = t.state === "done" ? "done by " : t.state === "dropped" ? "held by " : "claimed by ";
      who.push(did, sessionLink(this.ctx, t.owner), " ", timeAgo(t.doneAt ?? t.claimedAt));
    } else if (t.assigned)
      who.push(
        "sent to ",
        sessionLink(this.ctx, t.assigned),
        " ",
        timeAgo(t.assigned.at),
        ", not yet claimed",
      );
    else if (t.state === "dropped") who.push("dropped ", timeAgo(t.doneAt));
    who.push(
      who.length ? " · " : "",
      "added by ",
      t.by.whoId ? sessionLink(this.ctx, { id: t.by.whoId, name: t.by.who }) : t.by.who,
      " ",
      timeAgo(t.at),
    );
    lines.push(h("p", { class: "task-who muted small" }, who));
    if (t.result) lines.push(h("p", { class: "task-result" }, h("span", { class: "muted" }, "→ "), t.result));
    return lines;
  }

  /** The buttons, drawn again only when what they offer changed (not to lose a choice half made). */
  private renderActions(view: TaskView): void {
    if (this.ctx.readOnly() || view === "done" || view === "failed" || view === "dropped") {
      this.actions.hidden = true;
      return;
    }
    this.actions.hidden = false;
    const sessions = [...this.ctx.live.rows.values()].filter(isRunning);
    const names = sessions.map((r) => [r.id, displayName(r)]);
    if (!this.drawnActions.changed([view, this.confirmingDrop, this.busy, this.chosen, names])) return;
    const id = this.task.id;
    if (this.confirmingDrop) {
      replaceKeepingFocus(this.actions, [
        h("span", { class: "confirm" }, `Drop #${id}? Its holder is told.`),
        this.button("drop-yes", "Drop", () => void this.drop(), "danger"),
        this.button("drop-no", "Keep", () => this.askDrop(false)),
      ]);
      return;
    }
    const assign: Child[] = [];
    if (view === "open" || view === "blocked") {
      if (!sessions.some((r) => r.id === this.chosen)) this.chosen = "";
      const select = h(
        "select",
        { "aria-label": `Session to send task ${id} to`, "data-focus": "assign-to", disabled: this.busy },
        h("option", { value: "" }, sessions.length ? "a session…" : "no session is running"),
        sessions.map((r) =>
          h("option", { value: r.id, selected: r.id === this.chosen }, `${displayName(r)} (${r.id})`),
        ),
      );
      select.addEventListener("change", () => {
        this.chosen = select.value;
        (this.actions.querySelector("[data-focus=assign]") as HTMLButtonElement).disabled = !this.chosen;
      });
      const go = this.button("assign", "Assign", () => void this.assign());
      go.disabled = this.busy || !this.chosen;
      assign.push(select, go);
    }
    replaceKeepingFocus(this.actions, [...assign, this.button("drop", "Drop…", () => this.askDrop(true))]);
  }

  private button(key: string, label: string, onclick: () => void, cls = ""): HTMLButtonElement {
    return h(
      "button",
      { type: "button", class: `act ${cls}`.trim(), "data-focus": key, disabled: this.busy, onclick },
      label,
    );
  }

  private askDrop(asking: boolean): void {
    this.confirmingDrop = asking;
    this.drawnActions.forget();
    this.renderActions(this.shownView());
    this.actions.querySelector<HTMLElement>(asking ? "[data-focus=drop-no]" : "[data-focus=drop]")?.focus();
  }

  private shownView(): TaskView {
    return (this.el.dataset.state as TaskView | undefined) ?? "open";
  }

  private async assign(): Promise<void> {
    const to = this.chosen;
    if (!to) return;
    const name = this.ctx.live.rows.get(to);
    const sent = await this.act({ action: "assign", id: this.task.id, to }, "Sending…");
    if (!sent) return;
    const { sent: where = "sent", reason } = sent as { sent?: string | false; reason?: string };
    this.chosen = "";
    this.renderActions(this.shownView());
    const who = name ? displayName(name) : to;
    // Not reached (its session has 20 items waiting, or went): the task stays unassigned.
    if (where === false) this.say(`Not sent to ${who}: ${reason ?? "not reached"}`, "error");
    else this.say(`Sent to ${who}: ${where}`, "ok");
  }

  private async drop(): Promise<void> {
    const done = await this.act({ action: "drop", id: this.task.id }, "Dropping…");
    this.confirmingDrop = false;
    if (done) this.say(`Dropped #${this.task.id}`, "ok");
  }

  /** Runs a task action; its answer, or null (the failure said in the status). */
  private async act(args: Record<string, unknown>, doing: string): Promise<unknown> {
    this.busy = true;
    this.drawnActions.forget();
    this.renderActions(this.shownView());
    this.say(doing, "busy");
    try {
      return await op("task", args);
    } catch (err) {
      this.say(failedText(err, "try again"), "error");
      return null;
    } finally {
      this.busy = false;
      this.drawnActions.forget();
      this.renderActions(this.shownView());
    }
  }

  private say(text: string, kind: "ok" | "error" | "busy"): void {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
    if (text && kind !== "busy") this.ctx.announce(text);
  }
}
