/** A row's rename form: the name to edit, Save, Cancel (or Esc). */
import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import { closeOnEscape, h } from "./dom.js";

export interface RenameHost {
  /** Saves the name; true when it went through (the form then closes). */
  save(name: string): Promise<boolean>;
  close(): void;
}

export class RenameForm {
  readonly el: HTMLFormElement;
  private readonly input: HTMLInputElement;

  constructor(id: string, host: RenameHost) {
    const input = h("input", {
      name: "name",
      maxlength: String(LIMITS.name),
      required: true,
      "aria-label": `New name for ${id}`,
    });
    const form = h(
      "form",
      { class: "rename-form" },
      input,
      h("button", { type: "submit", class: "primary" }, "Save"),
      h("button", { type: "button", onclick: () => host.close() }, "Cancel"),
    );
    closeOnEscape(input, () => host.close());
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const name = input.value.trim();
      if (!name) return;
      if (await host.save(name)) host.close();
    });
    this.el = form;
    this.input = input;
  }

  /** Fills in the current name, selected, and focuses it (the form already in place). */
  edit(name: string): void {
    this.input.value = name;
    this.input.select();
    this.input.focus();
  }
}
