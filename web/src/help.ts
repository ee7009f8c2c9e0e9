/** The keyboard shortcuts' dialog (`?`). The same list is in docs/hub.md, "Keyboard". */
import { h } from "./dom.js";

const SHORTCUTS: [string, string][] = [
  ["j / k, ↓ / ↑", "next / previous job"],
  ["Enter", "answer the focused job in the preview (a wide screen), else open it"],
  ["→ / ←", "show the jobs under the focused one, or hide them (then: to its parent)"],
  ["/", "filter the jobs (Esc clears)"],
  ["x", "select the focused job, or clear it (shift-click: a range)"],
  ["r", "reply to the focused job, when it runs"],
  ["1 – 9", "pick a choice of the focused blocked job"],
  ["p", "pin or unpin the focused job"],
  ["Alt + ↑ / ↓", "move the focused job up or down (sorted in your order)"],
  ["d", "dispatch a job"],
  ["g j", "go to the jobs"],
  ["g e", "go to the events"],
  ["g b", "go to the task board"],
  ["g s", "go to the schedules"],
  ["g q", "go to the merge queue"],
  ["g $", "go to the spend (what the agents cost)"],
  ["Esc", "close a dialog or form; clear the selection; from a job's page, back to the jobs"],
  ["?", "this help"],
];

let dialog: HTMLDialogElement | null = null;

export function openHelp(): void {
  dialog ??= h(
    "dialog",
    { class: "dialog help", "aria-labelledby": "help-title" },
    h("h2", { id: "help-title" }, "Keyboard shortcuts"),
    h(
      "table",
      null,
      h(
        "tbody",
        null,
        SHORTCUTS.map(([k, what]) =>
          h("tr", null, h("th", { scope: "row" }, h("kbd", null, k)), h("td", null, what)),
        ),
      ),
    ),
    h(
      "p",
      { class: "muted small" },
      "In a job's terminal every key goes to the job: Ctrl+] leaves it (or click outside it).",
    ),
    h(
      "form",
      { method: "dialog", class: "dialog-bar" },
      h("button", { type: "submit", class: "primary" }, "Close"),
    ),
  );
  document.body.append(dialog);
  dialog.showModal();
}
