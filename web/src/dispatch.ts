/**
 * The dispatch dialog (`d`, "+ Dispatch"): the profile (the daemon's list), the task, a name, the
 * working directory. Sent again after a failure, the same form keeps its requestId: the daemon
 * answers `duplicate` instead of starting a second job.
 */
import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import { ActionId, failedText, op, type Profile, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { displayName } from "./row-words.js";

let dialog: HTMLDialogElement | null = null;

export function openDispatch(ctx: Ctx): void {
  if (ctx.readOnly()) return;
  dialog ??= new DispatchDialog(ctx).el;
  document.body.append(dialog);
  const select = dialog.querySelector<HTMLSelectElement>("select[name=profile]")!;
  showProfiles(select, ctx.profiles);
  dialog.showModal();
  select.focus();
}

/** A profile as an option: one whose program is not here is greyed, saying why in its tooltip. */
function option(p: Profile, chosen: string): HTMLOptionElement {
  const label = p.description ? `${p.name} — ${p.description}` : p.name;
  return h(
    "option",
    {
      value: p.name,
      selected: p.name === chosen,
      disabled: !p.installed,
      title: p.missing,
    },
    p.installed ? label : `${p.name} — not installed`,
  );
}

/**
 * The daemon's profiles (`profiles`): roost.json's first when it has any, then roost's own; in
 * each, those that can run first. The one chosen stays chosen if it still can run, else the
 * first that can is; the hint names the ones not installed here.
 */
function showProfiles(select: HTMLSelectElement, profiles: Profile[]): void {
  const ordered = (ps: Profile[]) => [...ps.filter((p) => p.installed), ...ps.filter((p) => !p.installed)];
  const own = ordered(profiles.filter((p) => p.source === "roost.json"));
  const builtIn = ordered(profiles.filter((p) => p.source === "built-in"));
  const runnable = [...own, ...builtIn].filter((p) => p.installed);
  const chosen = runnable.some((p) => p.name === select.value) ? select.value : (runnable[0]?.name ?? "");
  select.replaceChildren(
    ...(own.length
      ? [
          h(
            "optgroup",
            { label: "roost.json" },
            own.map((p) => option(p, chosen)),
          ),
          h(
            "optgroup",
            { label: "built in" },
            builtIn.map((p) => option(p, chosen)),
          ),
        ]
      : builtIn.map((p) => option(p, chosen))),
  );
  if (!profiles.length) select.append(h("option", { value: "" }, "no profiles (reconnecting?)"));
  else if (!runnable.length) select.append(h("option", { value: "", selected: true }, "none can run here"));
  const missing = profiles.filter((p) => !p.installed).map((p) => p.name);
  const hint = document.getElementById(`${select.id}-hint`);
  if (hint) {
    hint.textContent = missing.length ? `Not installed here: ${missing.join(", ")}.` : "";
    hint.hidden = !missing.length;
  }
}

/** A labelled field of the form, with its hint. */
function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  control.id = `dispatch-${control.getAttribute("name")}`;
  if (hint) control.setAttribute("aria-describedby", `${control.id}-hint`);
  return h(
    "div",
    { class: "field" },
    h("label", { for: control.id }, label),
    control,
    hint ? h("small", { class: "muted", id: `${control.id}-hint` }, hint) : null,
  );
}

/** The form's fields, as `dispatch` takes them: the task as typed, the rest trimmed, none empty. */
function dispatchArgs(form: HTMLFormElement): Record<string, unknown> {
  const data = new FormData(form);
  const args: Record<string, unknown> = { profile: String(data.get("profile") ?? "") };
  for (const k of ["task", "name", "cwd"]) {
    const v = String(data.get(k) ?? "").trim();
    if (v) args[k] = k === "task" ? String(data.get(k)) : v;
  }
  return args;
}

function fields(): HTMLElement[] {
  return [
    // Its hint names the profiles not installed here (showProfiles).
    field("Profile", h("select", { name: "profile", required: true }), "…"),
    field("Task", h("textarea", { name: "task", rows: "4", placeholder: "What should it do?" })),
    field(
      "Name",
      h("input", {
        name: "name",
        maxlength: String(LIMITS.name),
        placeholder: "optional",
        autocomplete: "off",
      }),
    ),
    field(
      "Working directory",
      h("input", {
        name: "cwd",
        placeholder: "the daemon's default",
        autocomplete: "off",
        spellcheck: "false",
      }),
      "An absolute path on the daemon's machine.",
    ),
  ];
}

class DispatchDialog {
  readonly el: HTMLDialogElement;
  private readonly form: HTMLFormElement;
  private readonly status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  private readonly submit = h("button", { type: "submit", class: "primary" }, "Dispatch");
  private readonly requestId: ActionId;

  constructor(private readonly ctx: Ctx) {
    this.form = h(
      "form",
      { method: "dialog", class: "dispatch-form" },
      h("h2", { id: "dispatch-title" }, "Dispatch a job"),
      fields(),
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

  private async send(): Promise<void> {
    const { status, submit } = this;
    const args = dispatchArgs(this.form);
    args.requestId = this.requestId.get();
    submit.disabled = true;
    status.dataset.kind = "busy";
    status.textContent = "Dispatching…";
    try {
      const { job } = await op<{ job: Row; duplicate?: boolean }>("dispatch", args);
      this.requestId.done();
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
