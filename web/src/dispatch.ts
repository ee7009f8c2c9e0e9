/**
 * The dispatch dialog (`d`, "+ Dispatch"): the profile (the daemon's list), the task, a name, the
 * working directory (picked from the recent ones and the repositories seen, the default said:
 * dispatch-where.ts), a worktree and its branch, and whether it runs in roost's sandbox (ticked as
 * its profile says). Sent again after a failure, the same form keeps its requestId: the daemon
 * answers `duplicate` instead of starting a second job.
 */
import { ActionId, failedText, op, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { keepDir, WhereFields } from "./dispatch-where.js";
import { h } from "./dom.js";
import { labelled, nameInput, profileField, showProfiles } from "./launch-fields.js";
import { displayName } from "./row-words.js";

let made: DispatchDialog | null = null;

export function openDispatch(ctx: Ctx): void {
  if (ctx.readOnly()) return;
  made ??= new DispatchDialog(ctx);
  const dialog = made.el;
  document.body.append(dialog);
  const select = dialog.querySelector<HTMLSelectElement>("select[name=profile]")!;
  showProfiles(select, ctx.profiles);
  made.asProfileSays();
  dialog.showModal();
  select.focus();
}

/** The sandbox's box, ticked as the chosen profile says (the user may change it after). */
function sandboxAsProfileSays(dialog: HTMLDialogElement, ctx: Ctx): void {
  const profile = dialog.querySelector<HTMLSelectElement>("select[name=profile]")!.value;
  const box = dialog.querySelector<HTMLInputElement>("input[name=sandbox]")!;
  box.checked = ctx.profiles.find((p) => p.name === profile)?.sandbox ?? false;
}

/**
 * The form's fields, as `dispatch` takes them: the task as typed, the rest trimmed, none empty;
 * the sandbox and the worktree as ticked (said either way: unticked runs a sandboxed profile's job
 * unconfined, a worktree profile's where it is told).
 */
function dispatchArgs(form: HTMLFormElement, where: WhereFields): Record<string, unknown> {
  const data = new FormData(form);
  const args: Record<string, unknown> = {
    profile: String(data.get("profile") ?? ""),
    sandbox: data.get("sandbox") === "on",
    ...where.args(),
  };
  for (const k of ["task", "name"]) {
    const v = String(data.get(k) ?? "").trim();
    if (v) args[k] = k === "task" ? String(data.get(k)) : v;
  }
  return args;
}

function fields(where: WhereFields): HTMLElement[] {
  const field = labelled("dispatch");
  return [
    profileField(field),
    field("Task", h("textarea", { name: "task", rows: "4", placeholder: "What should it do?" })),
    field("Name", nameInput()),
    ...where.fields(field),
    field(
      "Sandbox",
      h("input", { type: "checkbox", name: "sandbox" }),
      "Run it in bubblewrap (Linux): it writes only its tree and cannot act as the hub.",
    ),
  ];
}

class DispatchDialog {
  readonly el: HTMLDialogElement;
  private readonly form: HTMLFormElement;
  private readonly status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  private readonly submit = h("button", { type: "submit", class: "primary" }, "Dispatch");
  private readonly requestId: ActionId;
  private readonly where = new WhereFields();

  constructor(private readonly ctx: Ctx) {
    this.form = h(
      "form",
      { method: "dialog", class: "dispatch-form" },
      h("h2", { id: "dispatch-title" }, "Dispatch a job"),
      fields(this.where),
      this.status,
      h(
        "div",
        { class: "dialog-bar" },
        h("button", { type: "button", onclick: () => this.el.close() }, "Cancel"),
        this.submit,
      ),
    );
    this.el = h("dialog", { class: "dialog", "aria-labelledby": "dispatch-title" }, this.form);
    this.requestId = new ActionId(this.form);
    this.form.querySelector("select[name=profile]")!.addEventListener("change", () => this.asProfileSays());
    this.form.querySelector("textarea")!.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        this.form.requestSubmit();
      }
    });
    this.form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (!this.submit.disabled) void this.send();
    });
  }

  /** The boxes ticked as the chosen profile says, its default directory said, the places offered afresh. */
  asProfileSays(): void {
    sandboxAsProfileSays(this.el, this.ctx);
    const name = this.form.querySelector<HTMLSelectElement>("select[name=profile]")!.value;
    this.where.update(
      this.ctx.profiles.find((p) => p.name === name),
      this.ctx.live.rows.values(),
    );
  }

  private async send(): Promise<void> {
    const { status, submit } = this;
    const args = dispatchArgs(this.form, this.where);
    args.requestId = this.requestId.get();
    submit.disabled = true;
    status.dataset.kind = "busy";
    status.textContent = "Dispatching…";
    try {
      const { job } = await op<{ job: Row; duplicate?: boolean }>("dispatch", args);
      this.requestId.done();
      if (typeof args.cwd === "string") keepDir(args.cwd);
      this.sent(job);
    } catch (err) {
      status.dataset.kind = "error";
      status.textContent = failedText(err, "press Dispatch again to retry (it will not start twice)");
    } finally {
      submit.disabled = false;
    }
  }

  /** Closed, saying so; on the rows view, the new job's row takes the focus. */
  private sent(job: Row): void {
    this.status.textContent = "";
    this.form.reset();
    this.el.close();
    this.ctx.announce(`Dispatched ${displayName(job)} (${job.id})`);
    if (!location.hash.startsWith("#/jobs/") && !location.hash.startsWith("#/events")) {
      requestAnimationFrame(() =>
        document.querySelector<HTMLElement>(`li.row[data-id="${job.id}"]`)?.focus(),
      );
    }
  }
}
