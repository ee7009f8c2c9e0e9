/**
 * The dispatch dialog (`d`, "+ Dispatch"): the profile (the daemon's list), the task, a name, the
 * working directory. Sent again after a failure, the same form keeps its requestId: the daemon
 * answers `duplicate` instead of starting a second job.
 */
import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import { ActionId, failedText, op, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { displayName } from "./row-words.js";

let dialog: HTMLDialogElement | null = null;

export function openDispatch(ctx: Ctx): void {
  if (ctx.readOnly()) return;
  dialog ??= makeDialog(ctx);
  document.body.append(dialog);
  const select = dialog.querySelector<HTMLSelectElement>("select[name=profile]")!;
  const chosen = select.value;
  select.replaceChildren(
    ...ctx.profiles.map((p) =>
      h(
        "option",
        { value: p.name, selected: p.name === chosen },
        p.description ? `${p.name} — ${p.description}` : p.name,
      ),
    ),
  );
  if (!ctx.profiles.length) select.append(h("option", { value: "" }, "no profiles (reconnecting?)"));
  dialog.showModal();
  select.focus();
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

function makeDialog(ctx: Ctx): HTMLDialogElement {
  const status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "primary" }, "Dispatch");
  const form = h(
    "form",
    { method: "dialog", class: "dispatch-form" },
    h("h2", { id: "dispatch-title" }, "Dispatch a job"),
    field("Profile", h("select", { name: "profile", required: true })),
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
    status,
    h(
      "div",
      { class: "dialog-bar" },
      h("button", { type: "button", onclick: () => dialog.close() }, "Cancel"),
      submit,
    ),
  );
  const dialog = h("dialog", { class: "dialog", "aria-labelledby": "dispatch-title" }, form);
  const requestId = new ActionId(form);
  form.querySelector("textarea")!.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (submit.disabled) return;
    const data = new FormData(form);
    const args: Record<string, unknown> = { profile: String(data.get("profile") ?? "") };
    for (const k of ["task", "name", "cwd"]) {
      const v = String(data.get(k) ?? "").trim();
      if (v) args[k] = k === "task" ? String(data.get(k)) : v;
    }
    args.requestId = requestId.get();
    submit.disabled = true;
    status.dataset.kind = "busy";
    status.textContent = "Dispatching…";
    try {
      const { job } = await op<{ job: Row; duplicate?: boolean }>("dispatch", args);
      requestId.done();
      status.textContent = "";
      form.reset();
      dialog.close();
      ctx.announce(`Dispatched ${displayName(job)} (${job.id})`);
      if (!location.hash.startsWith("#/jobs/") && !location.hash.startsWith("#/events")) {
        requestAnimationFrame(() =>
          document.querySelector<HTMLElement>(`li.row[data-id="${job.id}"]`)?.focus(),
        );
      }
    } catch (err) {
      status.dataset.kind = "error";
      status.textContent = failedText(err, "press Dispatch again to retry (it will not start twice)");
    } finally {
      submit.disabled = false;
    }
  });
  return dialog;
}
