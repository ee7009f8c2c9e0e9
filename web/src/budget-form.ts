/**
 * A row's Budget… form (docs/budgets.md, "Going on"): the job's own budget, cost in dollars,
 * tokens, minutes, filled in with what it is now; Save sends the `budget` op with the fields given
 * (an empty one leaves that part as it is). The daemon checks them: its `bad_request` is shown as
 * it says it. A job stopped for its budget that is no longer spent goes on (`continued`).
 */
import { failedText, op, type Row } from "./api.js";
import { closeOnEscape, h } from "./dom.js";
import type { BudgetDimension, Limits } from "./spend-words.js";

export interface BudgetHost {
  /** Said on the row once saved (the form then closes). */
  done(text: string): void;
  close(): void;
}

const FIELDS: [BudgetDimension, string, string][] = [
  ["cost", "Cost ($)", "decimal"],
  ["tokens", "Tokens", "numeric"],
  ["minutes", "Minutes", "decimal"],
];

export class BudgetForm {
  readonly el: HTMLFormElement;
  private readonly inputs = new Map<BudgetDimension, HTMLInputElement>();
  private readonly status = h("span", { class: "form-status", role: "status" });

  constructor(
    private readonly id: string,
    host: BudgetHost,
  ) {
    const save = h("button", { type: "submit", class: "primary" }, "Save");
    const fields = FIELDS.map(([dim, label, mode]) => {
      // Text fields, not number ones: the browser's own check would hide the daemon's word on it.
      const input = h("input", { name: dim, inputmode: mode, autocomplete: "off", size: "7" });
      this.inputs.set(dim, input);
      closeOnEscape(input, () => host.close());
      return h("label", { class: "budget-field" }, h("span", null, label), input);
    });
    this.el = h(
      "form",
      { class: "budget-form", "aria-label": `The budget of ${id}` },
      h("span", { class: "budget-form-title" }, "Its own budget"),
      fields,
      h(
        "span",
        { class: "budget-form-buttons" },
        save,
        h("button", { type: "button", onclick: () => host.close() }, "Cancel"),
      ),
      this.status,
    );
    this.el.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      save.disabled = true;
      this.say("…", "busy");
      try {
        const { continued } = await op<{ continued: boolean }>("budget", this.args());
        host.done(continued ? "Budget set: the job goes on" : "Budget set");
        host.close();
      } catch (err) {
        this.say(failedText(err, "press Save again"), "error");
      } finally {
        save.disabled = false;
      }
    });
  }

  /** Fills in the job's own budget (roost.json's `budgets.job` where it has none of its own) and focuses the first field. */
  edit(row: Row): void {
    const b = row.budget;
    const own: Limits = b?.own ?? (b?.scope === "job" && b.limit ? b.limit : {});
    for (const [dim, input] of this.inputs) input.value = own[dim] !== undefined ? String(own[dim]) : "";
    this.say("", "ok");
    const first = this.inputs.get("cost");
    first?.select();
    first?.focus();
  }

  /** The fields given, as numbers where they read as one (else as typed: the daemon says what is wrong). */
  private args(): Record<string, unknown> {
    const args: Record<string, unknown> = { id: this.id };
    for (const [dim, input] of this.inputs) {
      const text = input.value.trim().replace(/^\$/, "");
      if (!text) continue;
      const n = Number(text);
      args[dim] = Number.isFinite(n) ? n : text;
    }
    return args;
  }

  private say(text: string, kind: "ok" | "error" | "busy"): void {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
  }
}
