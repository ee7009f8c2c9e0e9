/**
 * The board page's form that adds a task: its title, the tasks it waits on (`after`: their ids,
 * "1, 3" or "#1 #3"), and its detail. Checked here first (an id the board does not have, a title
 * too long), so that the daemon's refusal is rarely what the user reads.
 */
import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import { type BoardTask, failedText, op } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";

/** The ids typed into After, or why they are not ids. */
export function parseAfter(text: string): number[] | string {
  const words = text.split(/[\s,]+/).filter(Boolean);
  const ids: number[] = [];
  for (const w of words) {
    const m = /^#?([0-9]{1,15})$/.exec(w);
    if (!m || Number(m[1]) < 1) return `"${w}" is not a task's number: write them as 1, 3`;
    ids.push(Number(m[1]));
  }
  return [...new Set(ids)];
}

export class TaskForm {
  readonly el: HTMLFormElement;
  private readonly title = h("input", {
    name: "title",
    id: "task-title",
    required: true,
    maxlength: String(LIMITS.taskTitle),
    placeholder: "What is to be done?",
    autocomplete: "off",
  });
  private readonly after = h("input", {
    name: "after",
    id: "task-after",
    placeholder: "e.g. 1, 3",
    autocomplete: "off",
    inputmode: "numeric",
    "aria-describedby": "task-after-hint",
  });
  private readonly detail = h("textarea", {
    name: "detail",
    id: "task-detail",
    rows: "2",
    maxlength: String(LIMITS.taskDetail),
    placeholder: "optional: how, where, what done means (an example agent runs it as shell steps)",
  });
  private readonly submit = h("button", { type: "submit", class: "primary" }, "Add task");
  private readonly status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });

  constructor(
    private readonly ctx: Ctx,
    private readonly board: () => readonly BoardTask[],
  ) {
    this.el = h(
      "form",
      { class: "task-form", "aria-labelledby": "task-form-title" },
      h("h2", { id: "task-form-title", class: "sr-only" }, "Add a task"),
      h(
        "div",
        { class: "task-form-row" },
        h("div", { class: "field grow" }, h("label", { for: "task-title" }, "New task"), this.title),
        h(
          "div",
          { class: "field after" },
          h("label", { for: "task-after" }, "After"),
          this.after,
          h("small", { class: "muted", id: "task-after-hint" }, "the tasks it waits on"),
        ),
      ),
      h("div", { class: "field" }, h("label", { for: "task-detail" }, "Detail"), this.detail),
      h("div", { class: "task-form-bar" }, this.status, this.submit),
    );
    this.el.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (!this.submit.disabled) void this.send();
    });
  }

  private say(text: string, kind: "ok" | "error" | "busy"): void {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
  }

  private async send(): Promise<void> {
    const title = this.title.value.trim();
    if (!title) return this.say("Say what the task is first.", "error");
    const after = parseAfter(this.after.value);
    if (typeof after === "string") return this.say(after, "error");
    const known = new Set(this.board().map((t) => t.id));
    const unknown = after.filter((id) => !known.has(id));
    if (unknown.length)
      return this.say(`The board has no task ${unknown.map((id) => `#${id}`).join(", ")}.`, "error");
    const detail = this.detail.value.trim();
    this.submit.disabled = true;
    this.say("Adding…", "busy");
    try {
      const { task } = await op<{ task: BoardTask }>("task", {
        action: "add",
        title,
        ...(detail ? { detail } : {}),
        ...(after.length ? { after } : {}),
      });
      this.el.reset();
      this.say(`Added #${task.id}.`, "ok");
      this.ctx.announce(`Added task ${task.id}: ${task.title}`);
      this.title.focus();
    } catch (err) {
      // No request id for `add`: a retry after a lost answer could add it twice, so look first.
      this.say(failedText(err, "look at the board before adding it again"), "error");
    } finally {
      this.submit.disabled = false;
    }
  }
}
