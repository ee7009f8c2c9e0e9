/**
 * The notifications dialog ("Notify…" in the header): the browser's permission (asked for here,
 * on a click, as browsers require), and what to be notified of, kept in this browser (prefs.ts).
 */
import { canNotify } from "./attention.js";
import { h } from "./dom.js";
import { type Prefs, prefs, setPrefs } from "./prefs.js";

const CHOICES: [keyof Prefs["notify"], string, string][] = [
  ["need", "It needs you", "blocked on a question (and each new question it asks), or failed"],
  ["turn", "It is your turn", "its prompt is back, or its agent is done or waits for you, while it runs"],
  ["done", "It finished", "it ended without an error"],
];

let dialog: HTMLDialogElement | null = null;

export function openNotifySettings(): void {
  dialog ??= build();
  document.body.append(dialog);
  draw(dialog);
  dialog.showModal();
}

function build(): HTMLDialogElement {
  return h("dialog", { class: "dialog notify-settings", "aria-labelledby": "notify-title" });
}

/** What the browser lets the page do, in words, with the button that asks when it may. */
function permission(redraw: () => void): (Node | string)[] {
  if (!canNotify()) return ["This browser cannot show notifications here (they need https or localhost)."];
  if (Notification.permission === "granted") return ["This browser shows roost's notifications."];
  if (Notification.permission === "denied")
    return ["This browser blocks roost's notifications: allow them in its site settings."];
  return [
    "This browser asks before showing notifications. ",
    h(
      "button",
      {
        type: "button",
        class: "primary",
        onclick: () => void Notification.requestPermission().finally(redraw),
      },
      "Allow notifications",
    ),
  ];
}

function draw(d: HTMLDialogElement): void {
  const redraw = () => draw(d);
  const chosen = prefs().notify;
  d.replaceChildren(
    h(
      "form",
      { method: "dialog" },
      h("h2", { id: "notify-title" }, "Notifications"),
      h("p", { class: "notify-permission" }, permission(redraw)),
      h(
        "fieldset",
        { class: "notify-choices" },
        h("legend", null, "Notify me when a job…"),
        CHOICES.map(([key, label, hint]) =>
          h(
            "label",
            { class: "check" },
            h("input", {
              type: "checkbox",
              name: key,
              checked: chosen[key],
              onchange: (ev: Event) =>
                setPrefs({
                  notify: { ...prefs().notify, [key]: (ev.target as HTMLInputElement).checked },
                }),
            }),
            h("span", null, h("strong", null, label), h("small", { class: "muted" }, hint)),
          ),
        ),
      ),
      h(
        "p",
        { class: "muted small" },
        "Only while this page is in the background: in front of you, the page says it already. " +
          "Your choice is kept in this browser.",
      ),
      h("div", { class: "dialog-bar" }, h("button", { type: "submit", class: "primary" }, "Close")),
    ),
  );
}
