/**
 * "Merge…" on the selected rows (bulk.ts): a small dialog that queues their branches to land one
 * at a time (`queue-add`), in the order the rows show: the check to run on each, the branch to
 * land on (default: each job's base), whether to tell a job what to fix, a remote to push to,
 * and whether to clean up once landed. Queued, it goes to the queue's page.
 */
import { failedText, op, type QueueEntry, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { counted, h } from "./dom.js";
import { queueStore } from "./queue-store.js";
import { displayName } from "./row-words.js";

/** Whether a row's branch can be queued: it has a worktree. */
export const canMerge = (row: Row): boolean => !!row.worktree;

export function openMergeForm(ctx: Ctx, rows: Row[], queued: () => void): void {
  const dialog = h("dialog", { class: "dialog merge-form", "aria-labelledby": "merge-title" });
  const field = (id: string, label: string, input: HTMLInputElement, hint: string) =>
    h(
      "div",
      { class: "field" },
      h("label", { for: id }, label),
      input,
      h("small", { class: "muted", id: `${id}-hint` }, hint),
    );
  const check = h("input", {
    id: "merge-check",
    name: "check",
    type: "text",
    placeholder: "npm test",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "merge-check-hint",
  });
  const bases = [...new Set(rows.map((r) => r.worktree?.base).filter((b): b is string => !!b))];
  const into = h("input", {
    id: "merge-into",
    name: "into",
    type: "text",
    placeholder: bases.length ? bases.join(", ") : "each job's base",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "merge-into-hint",
  });
  const push = h("input", {
    id: "merge-push",
    name: "push",
    type: "text",
    placeholder: "origin",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "merge-push-hint",
  });
  const box = (name: string, label: string, hint: string) =>
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", name }),
      h("span", null, h("strong", null, label), h("small", { class: "muted" }, hint)),
    );
  const status = h("p", { class: "form-status", role: "status" });
  const submit = h("button", { type: "submit", class: "primary" }, `Queue ${counted(rows.length, "job")}`);
  const form = h(
    "form",
    { method: "dialog" },
    h("h2", { id: "merge-title" }, "Merge through the queue"),
    h(
      "p",
      { class: "muted small" },
      "Each branch is merged onto its target and checked there; the target moves only when the check passes. In this order:",
    ),
    h(
      "ol",
      { class: "merge-jobs", "aria-label": "The branches, in the order they land" },
      rows.map((r) =>
        h(
          "li",
          null,
          h("span", { class: "name" }, displayName(r)),
          " ",
          h("code", null, r.worktree?.branch ?? ""),
          h("span", { class: "muted" }, ` → ${r.worktree?.base ?? "?"}`),
        ),
      ),
    ),
    field("merge-check", "Check", check, "A shell command run in the merged tree (optional)."),
    field("merge-into", "Into", into, "The branch to land on; empty: each job's own base."),
    field("merge-push", "Push to", push, "A remote to push the target to after each landing (optional)."),
    h(
      "fieldset",
      { class: "merge-options" },
      h("legend", null, "Options"),
      box("tell", "Tell the job", "a branch that conflicts or fails the check: its job is sent what to fix"),
      box("clean", "Clean up", "a landed job removed with its worktree and branch"),
    ),
    status,
    h(
      "div",
      { class: "dialog-bar" },
      h("button", { type: "button", onclick: () => dialog.close() }, "Cancel"),
      submit,
    ),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void send();
  });
  const send = async () => {
    const flag = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).checked;
    const args: Record<string, unknown> = {
      ids: rows.map((r) => r.id),
      tell: flag("tell"),
      clean: flag("clean"),
    };
    if (check.value.trim()) args.check = check.value.trim();
    if (into.value.trim()) args.into = into.value.trim();
    if (push.value.trim()) args.push = push.value.trim();
    submit.disabled = true;
    status.dataset.kind = "busy";
    status.textContent = "Queueing…";
    try {
      const { entries } = await op<{ entries: QueueEntry[] }>("queue-add", args);
      const store = queueStore(ctx);
      for (const e of entries) store.put(e);
      ctx.announce(`Queued ${counted(entries.length, "job")} to land, one at a time.`);
      dialog.close();
      queued();
      location.hash = "#/queue";
    } catch (err) {
      // The daemon's words: which job has no worktree, whose checkout is dirty, which branch is gone.
      status.dataset.kind = "error";
      status.textContent = failedText(err, "try again");
      submit.disabled = false;
    }
  };
  dialog.append(form);
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  check.focus();
}
