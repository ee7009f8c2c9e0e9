/**
 * The board page (`#/board`, `#/board?task=<id>` to go to one): the shared task board, live.
 * Open tasks first (blocked ones among them, marked, saying what they wait on), then claimed,
 * done and dropped, each oldest first. A token that may act adds tasks here, sends one to a
 * session (Assign) or drops one; a read-only one sees the same board without a control.
 */
import { taskFailed, taskView } from "../../sdk/ts/protocol/board-view.js";
import type { BoardTask } from "./api.js";
import { countWords } from "./board-state.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { TaskForm } from "./task-form.js";
import { TaskItem } from "./task-item.js";
import type { View } from "./view.js";

const SECTIONS = [
  { key: "open", title: "Open", empty: "Nothing open." },
  { key: "claimed", title: "Claimed", empty: "Nobody holds a task." },
  { key: "done", title: "Done", empty: "Nothing done yet." },
  { key: "dropped", title: "Dropped", empty: null },
] as const;
type SectionKey = (typeof SECTIONS)[number]["key"];

export function boardView(ctx: Ctx, focusTask: number | null): View {
  return new BoardView(ctx, focusTask);
}

class BoardView implements View {
  readonly el = h("section", { class: "view board-view", "aria-labelledby": "board-title" });
  private readonly summary = h("span", { class: "muted board-sum", role: "status" });
  private readonly note = h("p", { class: "empty", hidden: true });
  private readonly items = new Map<number, TaskItem>();
  private readonly lists = new Map<
    SectionKey,
    { section: HTMLElement; list: HTMLOListElement; empty: HTMLElement }
  >();
  private readonly unsubscribe: (() => void)[];

  constructor(
    private readonly ctx: Ctx,
    private focusTask: number | null,
  ) {
    this.el.append(
      h("div", { class: "view-head" }, h("h1", { id: "board-title" }, "Task board"), this.summary),
      h(
        "p",
        { class: "muted small board-about" },
        "Shared by every session: each claims an open task, does it and marks it done. A task waits until those in its After are done or dropped.",
      ),
    );
    if (!ctx.readOnly()) this.el.append(new TaskForm(ctx, () => ctx.board.tasks ?? []).el);
    this.el.append(this.note);
    for (const s of SECTIONS) {
      const id = `board-${s.key}`;
      const list = h("ol", { class: "tasks", "aria-labelledby": id });
      const empty = h("p", { class: "muted small" }, s.empty ?? "");
      const section = h(
        "section",
        { class: `board-section s-${s.key}` },
        h("h2", { id }, s.title),
        list,
        empty,
      );
      this.lists.set(s.key, { section, list, empty });
      this.el.append(section);
    }
    this.render();
    this.unsubscribe = [ctx.board.subscribe(() => this.render()), ctx.live.subscribe(() => this.render())];
  }

  dispose(): void {
    for (const u of this.unsubscribe) u();
  }

  private render(): void {
    const { board } = this.ctx;
    const tasks = board.tasks;
    const failed = tasks?.filter(taskFailed).length ?? 0;
    this.summary.textContent = board.counts
      ? `${countWords(board.counts) || "empty"}${failed ? ` (${failed} failed)` : ""}`
      : "";
    this.note.hidden = !!tasks && tasks.length > 0;
    this.note.textContent = !tasks
      ? board.error
        ? `The board could not be read: ${board.error}`
        : "Reading the board…"
      : this.ctx.readOnly()
        ? "The board is empty."
        : "The board is empty: add the first task above.";
    for (const { section } of this.lists.values()) section.hidden = !tasks || tasks.length === 0;
    if (!tasks) return;
    const bySection = new Map<SectionKey, BoardTask[]>(SECTIONS.map((s) => [s.key, []]));
    for (const t of tasks) bySection.get(t.state)!.push(t);
    const seen = new Set<number>();
    for (const [key, { section, list, empty }] of this.lists) {
      const these = bySection.get(key)!;
      const els = these.map((t) => {
        seen.add(t.id);
        let item = this.items.get(t.id);
        if (!item) {
          item = new TaskItem(this.ctx, t);
          this.items.set(t.id, item);
        }
        item.update(t, tasks);
        return item.el;
      });
      // Moved only when the order changed: moving the element with the focus would lose it.
      const same = els.length === list.children.length && els.every((el, i) => list.children[i] === el);
      if (!same) list.replaceChildren(...els);
      empty.hidden = these.length > 0 || key === "dropped";
      if (key === "dropped") section.hidden = these.length === 0;
      const marked = key === "done" ? "failed" : "blocked";
      const odd = these.filter((t) => taskView(t, tasks) === marked).length;
      section.querySelector("h2")!.textContent =
        `${SECTIONS.find((s) => s.key === key)!.title} · ${these.length}${odd ? ` (${odd} ${marked})` : ""}`;
    }
    for (const id of [...this.items.keys()]) if (!seen.has(id)) this.items.delete(id);
    this.goToTask();
  }

  /** `#/board?task=3`: that task in view and focused, once it is drawn. */
  private goToTask(): void {
    if (this.focusTask === null) return;
    const item = this.items.get(this.focusTask);
    if (!item) return;
    this.focusTask = null;
    item.el.tabIndex = -1;
    item.el.classList.add("flash");
    requestAnimationFrame(() => {
      item.el.scrollIntoView({ block: "center" });
      item.el.focus({ preventScroll: true });
    });
  }
}
