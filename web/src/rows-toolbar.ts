/**
 * The jobs view's toolbar: select every row shown, the filter (text, `/` to get there; state;
 * profile), the order (what needs you first, or yours) and the layout (dense or roomy), and how
 * many rows the filter shows.
 */
import type { Profile, Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { counted, h, Shown } from "./dom.js";
import { type Prefs, prefs, setPrefs } from "./prefs.js";
import { ClearEnded } from "./rows-tidy.js";
import { isFiltered, LOCAL_DAEMON, NO_FILTER, STATE_CHOICES } from "./triage.js";

export interface ToolbarHost {
  /** Selects every row shown (or none). */
  selectAll(on: boolean): void;
  /** The order or the layout changed. */
  setLayout(change: Partial<Pick<Prefs, "density" | "order">>): void;
  /** Draw the rows again (when ended rows fold changed). */
  refresh(): void;
}

/**
 * What the toolbar says of the rows: how many there are, match the filter, are shown (those
 * matched but folded under a parent are not: select-all takes what is shown), and are selected.
 */
export interface Counts {
  total: number;
  matched: number;
  shown: number;
  selected: number;
  /** The profiles the rows and the daemon know, for the profile filter. */
  profiles: string[];
  /** The remotes (docs/fleet.md), for the daemon filter: none, and it is not shown. */
  remotes: { name: string; reachable: boolean }[];
}

/** The profile filter's choices: those of the rows and the daemon's, by name. */
export function profileChoices(all: Row[], profiles: readonly Profile[]): string[] {
  const names = new Set(all.map((r) => r.profile));
  for (const p of profiles) names.add(p.name);
  return [...names].sort();
}

/** When ended rows fold away: [minutes, label]; 0 is never. */
const FOLD_CHOICES: [number, string][] = [
  [10, "ended: fold after 10 min"],
  [60, "ended: fold after 1 h"],
  [0, "ended: never fold"],
];

const labelled = (label: string, control: HTMLElement) =>
  h("label", { class: "tool" }, h("span", { class: "tool-label" }, label), control);

export class RowsToolbar {
  readonly el: HTMLElement;
  readonly search: HTMLInputElement;
  private readonly all: HTMLInputElement | null;
  private readonly state: HTMLSelectElement;
  private readonly profile: HTMLSelectElement;
  private readonly daemon: HTMLSelectElement;
  private readonly daemonTool: HTMLElement;
  private readonly daemonsShown = new Shown();
  private readonly order: HTMLSelectElement;
  private readonly density: HTMLButtonElement[];
  private readonly reset: HTMLButtonElement;
  private readonly previewBtn: HTMLButtonElement;
  private readonly foldEnded: HTMLSelectElement;
  private readonly clearEnded: ClearEnded;
  private readonly count = h("span", { class: "count muted" });
  private readonly profilesShown = new Shown();

  constructor(
    private readonly ctx: Ctx,
    host: ToolbarHost,
  ) {
    const triage = ctx.triage;
    this.all = ctx.readOnly()
      ? null
      : h("input", {
          type: "checkbox",
          class: "select-all",
          "aria-label": "Select every job shown",
          onchange: (ev: Event) => host.selectAll((ev.target as HTMLInputElement).checked),
        });
    this.search = h("input", {
      type: "search",
      class: "search",
      placeholder: "Filter…  /",
      "aria-label": "Filter the jobs by text",
      "aria-keyshortcuts": "/",
      autocomplete: "off",
      spellcheck: "false",
      oninput: () => triage.set({ text: this.search.value }),
    });
    this.search.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape") return;
      // Esc: the text cleared; again, back to the rows.
      ev.preventDefault();
      if (this.search.value) {
        this.search.value = "";
        triage.set({ text: "" });
      } else this.search.blur();
    });
    this.state = h(
      "select",
      { class: "state-filter", onchange: () => triage.set({ state: this.state.value }) },
      STATE_CHOICES.map(([value, label]) => h("option", { value }, label)),
    );
    this.profile = h("select", {
      class: "profile-filter",
      onchange: () => triage.set({ profile: this.profile.value }),
    });
    this.daemon = h("select", {
      class: "daemon-filter",
      onchange: () => triage.set({ daemon: this.daemon.value }),
    });
    this.daemonTool = labelled("Daemon", this.daemon);
    this.daemonTool.hidden = true;
    this.order = h(
      "select",
      {
        class: "order",
        onchange: () => host.setLayout({ order: this.order.value as Prefs["order"] }),
      },
      h("option", { value: "state", selected: prefs().order === "state" }, "needs you first"),
      h("option", { value: "mine", selected: prefs().order === "mine" }, "your order"),
      h("option", { value: "repo", selected: prefs().order === "repo" }, "by repository"),
      h("option", { value: "cpu", selected: prefs().order === "cpu" }, "by CPU"),
      h("option", { value: "mem", selected: prefs().order === "mem" }, "by memory"),
    );
    this.foldEnded = h(
      "select",
      {
        class: "fold-ended",
        title: "When ended jobs (done, stopped) fold away into one line",
        onchange: () => {
          setPrefs({ foldEnded: Number(this.foldEnded.value) });
          host.refresh();
        },
      },
      FOLD_CHOICES.map(([m, label]) =>
        h("option", { value: String(m), selected: prefs().foldEnded === m }, label),
      ),
    );
    this.clearEnded = new ClearEnded(() => ctx.live.sorted());
    this.density = (["dense", "roomy"] as const).map((d) =>
      h(
        "button",
        {
          type: "button",
          class: "seg",
          "aria-pressed": String(prefs().density === d),
          title: d === "dense" ? "One line a job" : "A card a job, with its actions",
          onclick: () => host.setLayout({ density: d }),
        },
        d === "dense" ? "Dense" : "Roomy",
      ),
    );
    this.previewBtn = h(
      "button",
      {
        type: "button",
        class: "seg preview-toggle",
        "aria-pressed": String(prefs().preview),
        title: "The row the keyboard is on, beside the list (a wide screen)",
        onclick: () => {
          const { preview } = setPrefs({ preview: !prefs().preview });
          this.previewBtn.setAttribute("aria-pressed", String(preview));
        },
      },
      "Preview",
    );
    this.reset = h(
      "button",
      { type: "button", class: "ghost small", onclick: () => this.clearFilter() },
      "Clear filter",
    );
    this.el = h(
      "div",
      { class: "rows-toolbar", role: "toolbar", "aria-label": "Filter and arrange the jobs" },
      this.all,
      this.search,
      labelled("State", this.state),
      labelled("Profile", this.profile),
      this.daemonTool,
      this.reset,
      this.count,
      h("span", { class: "spacer" }),
      ctx.readOnly() ? null : this.clearEnded.el,
      labelled("Ended", this.foldEnded),
      labelled("Sort", this.order),
      h("span", { class: "segs", role: "group", "aria-label": "Layout" }, this.density),
      this.previewBtn,
    );
  }

  clearFilter(): void {
    this.search.value = "";
    this.ctx.triage.set(NO_FILTER);
  }

  /** Draws the controls as the filter and the rows are now (the badge may have set the filter). */
  update(counts: Counts): void {
    const f = this.ctx.triage.filter;
    if (this.search.value !== f.text && document.activeElement !== this.search) this.search.value = f.text;
    this.state.value = f.state;
    this.showProfiles(counts.profiles, f.profile);
    this.showDaemons(counts.remotes, f.daemon);
    this.reset.hidden = !isFiltered(f);
    this.count.textContent =
      counts.matched === counts.total
        ? counted(counts.total, "job")
        : `${counts.matched} of ${counted(counts.total, "job")}`;
    if (this.all) {
      this.all.checked = counts.shown > 0 && counts.selected === counts.shown;
      this.all.indeterminate = counts.selected > 0 && counts.selected < counts.shown;
      this.all.disabled = counts.shown === 0;
    }
    for (const b of this.density)
      b.setAttribute("aria-pressed", String(b.textContent?.toLowerCase() === prefs().density));
    this.order.value = prefs().order;
    this.clearEnded.update();
    this.previewBtn.setAttribute("aria-pressed", String(prefs().preview));
  }

  /** The daemon filter, shown once there are remotes: this daemon, then each remote (one not answering says so). */
  private showDaemons(remotes: Counts["remotes"], chosen: string): void {
    this.daemonTool.hidden = remotes.length === 0 && !chosen;
    if (this.daemonsShown.changed(remotes.map((r) => [r.name, r.reachable]))) {
      this.daemon.replaceChildren(
        h("option", { value: "" }, "every daemon"),
        h("option", { value: LOCAL_DAEMON }, "this daemon"),
        ...remotes.map((r) =>
          h("option", { value: r.name }, r.reachable ? r.name : `${r.name} (not answering)`),
        ),
      );
    }
    this.daemon.value = chosen;
  }

  private showProfiles(names: string[], chosen: string): void {
    const all = chosen && !names.includes(chosen) ? [...names, chosen] : names;
    if (this.profilesShown.changed(all)) {
      this.profile.replaceChildren(
        h("option", { value: "" }, "every profile"),
        ...all.map((p) => h("option", { value: p }, p)),
      );
    }
    this.profile.value = chosen;
  }
}
