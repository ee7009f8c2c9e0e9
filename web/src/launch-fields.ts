/**
 * The fields a launch has wherever one is made (the dispatch dialog, a schedule's form): the
 * profile, chosen from the daemon's list, the job's name and its working directory, each labelled.
 */
import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import type { Profile } from "./api.js";
import { h } from "./dom.js";

export type Field = (label: string, control: HTMLElement, hint?: HTMLElement | string) => HTMLDivElement;

/** A labelled field of the form whose ids start with `form`, its hint tied to it for screen readers. */
export function labelled(form: string): Field {
  return (label, control, hint) => {
    control.id = `${form}-${control.getAttribute("name")}`;
    const hintEl = typeof hint === "string" ? h("small", { class: "muted" }, hint) : (hint ?? null);
    if (hintEl) {
      hintEl.id = `${control.id}-hint`;
      control.setAttribute("aria-describedby", hintEl.id);
    }
    return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hintEl);
  };
}

/** The profile's select; its hint names the profiles not installed here (showProfiles fills both). */
export const profileField = (field: Field) =>
  field("Profile", h("select", { name: "profile", required: true }), "…");

export const nameInput = () =>
  h("input", { name: "name", maxlength: String(LIMITS.name), placeholder: "optional", autocomplete: "off" });

export const cwdInput = (placeholder: string) =>
  h("input", { name: "cwd", placeholder, autocomplete: "off", spellcheck: "false" });

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
export function showProfiles(select: HTMLSelectElement, profiles: Profile[]): void {
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
  // Its own field's hint, found there: the form may not be in the page yet.
  const hint = select.parentElement?.querySelector<HTMLElement>(`[id="${select.id}-hint"]`);
  if (hint) {
    hint.textContent = missing.length ? `Not installed here: ${missing.join(", ")}.` : "";
    hint.hidden = !missing.length;
  }
}
