/**
 * The schedules view (`#/schedules`): each schedule, its `when` in words, its next run in its
 * time zone, its last runs with links to their jobs, and (for a token that may act) pause or
 * resume, run now and remove; the form that adds one above them. Loaded with `schedules`, then
 * live: each change comes as a `schedule` push (live.ts), and after a reconnection the list is
 * loaded again.
 */
import { dueIn, zonedClock } from "../../sdk/ts/protocol/time-words.js";
import { failedText, get, op, type Schedule, type ScheduleEvent } from "./api.js";
import type { Ctx } from "./ctx.js";
import { type Child, h, KeptItems, timeAgo } from "./dom.js";
import { displayName } from "./row-words.js";
import { ScheduleForm } from "./schedule-form.js";
import type { View } from "./view.js";

const OUTCOME_TONES = { started: "b-done", skipped: "b-ended", failed: "b-failed" } as const;

export function schedulesView(ctx: Ctx): View {
  return new SchedulesView(ctx);
}

class SchedulesView implements View {
  readonly el = h("section", { class: "view schedules-view", "aria-labelledby": "schedules-title" });
  private readonly list = h("ul", { class: "schedules", "aria-label": "Schedules", "aria-busy": "true" });
  private readonly empty = h("p", { class: "empty", hidden: true }, "No schedules yet.");
  private readonly schedules = new Map<string, Schedule>();
  /** Each card, made anew only when its schedule changed (dom.ts): a Remove… asked, a status said, stay. */
  private readonly cards = new KeptItems<Schedule>(
    this.list,
    (s) => s.id,
    (s) => this.card(s),
  );
  private readonly form: ScheduleForm | null;
  private readonly offs: (() => void)[];
  /** Keeps each "(in 3 h)" true between pushes. */
  private readonly ticker: number;

  constructor(private readonly ctx: Ctx) {
    this.form = ctx.readOnly() ? null : new ScheduleForm(ctx, (s) => this.put(s));
    this.el.append(
      h(
        "div",
        { class: "view-head" },
        h("h1", { id: "schedules-title" }, "Schedules"),
        h("span", { class: "muted small" }, "jobs started on a clock"),
      ),
      this.empty,
      this.list,
    );
    if (this.form) this.el.append(this.form.el);
    this.offs = [
      ctx.live.onSchedule((e) => this.pushed(e)),
      ctx.live.onConnect((again) => {
        if (again) void this.load();
      }),
    ];
    this.ticker = window.setInterval(() => {
      for (const el of this.list.querySelectorAll<HTMLElement>("[data-in]"))
        el.textContent = ` (${dueIn(el.dataset.in ?? "", Date.now(), " ")})`;
    }, 5000);
    void this.load();
  }

  dispose(): void {
    window.clearInterval(this.ticker);
    for (const off of this.offs) off();
    this.form?.dispose();
  }

  private async load(): Promise<void> {
    try {
      const { schedules } = await get<{ schedules: Schedule[] }>("schedules");
      this.schedules.clear();
      for (const s of schedules) this.schedules.set(s.id, s);
      this.render();
    } catch (err) {
      this.list.replaceChildren(
        h("li", { class: "error" }, `Could not load the schedules: ${(err as Error).message}`),
      );
    } finally {
      this.list.removeAttribute("aria-busy");
    }
  }

  private pushed(e: ScheduleEvent): void {
    if (e.schedule) this.put(e.schedule);
    else if (this.schedules.delete(e.id)) this.render();
  }

  private put(s: Schedule): void {
    this.schedules.set(s.id, s);
    this.render();
  }

  private render(): void {
    const all = [...this.schedules.values()].sort((a, b) => idNumber(a.id) - idNumber(b.id));
    this.empty.hidden = all.length > 0;
    this.cards.draw(all);
  }

  private card(s: Schedule): HTMLLIElement {
    const status = h("p", { class: "form-status", role: "status" });
    return h(
      "li",
      {
        class: `schedule${s.paused ? " paused" : ""}`,
        "data-id": s.id,
        "aria-labelledby": `schedule-${s.id}-name`,
      },
      h(
        "div",
        { class: "schedule-head" },
        h("h2", { id: `schedule-${s.id}-name`, class: "name" }, s.name),
        h("span", { class: "muted small" }, s.id),
        s.paused ? h("span", { class: "badge b-ended" }, "paused") : null,
        s.needsYou ? h("span", { class: "badge b-failed needs-you" }, "needs you") : null,
      ),
      s.needsYou ? h("p", { class: "needs-you-why" }, `Needs you: ${s.needsYou}`) : null,
      h("p", { class: "when" }, s.words),
      h("p", { class: "next" }, nextRun(s)),
      h(
        "p",
        { class: "launch muted small" },
        `${s.launch.profile}: `,
        h("span", { class: "task" }, s.launch.task),
        s.launch.name ? ` · its jobs named ${s.launch.name}` : null,
        s.launch.cwd ? ` · in ${s.launch.cwd}` : null,
        s.missed === "once" ? " · runs missed while down: one job for them all" : null,
      ),
      this.ctx.readOnly() ? null : this.actions(s, status),
      status,
      this.runs(s),
    );
  }

  private actions(s: Schedule, status: HTMLElement): HTMLElement {
    const act = (name: string, label: string, run: () => Promise<unknown>, cls = "") =>
      h(
        "button",
        { type: "button", class: cls, "data-focus": name, onclick: () => void this.act(status, run) },
        label,
      );
    const remove = h("button", { type: "button", class: "danger", "data-focus": "rm" }, "Remove…");
    remove.addEventListener("click", () => {
      // Asked once more on the button itself: a schedule removed is gone, with its runs' list.
      if (remove.dataset.confirm) void this.act(status, () => op("schedule-rm", { id: s.id }));
      else {
        remove.dataset.confirm = "1";
        remove.textContent = `Remove ${s.id}: sure?`;
      }
    });
    return h(
      "div",
      { class: "schedule-actions" },
      s.paused
        ? act("pause", "Resume", () => op("schedule-pause", { id: s.id, paused: false }))
        : act("pause", "Pause", () => op("schedule-pause", { id: s.id, paused: true })),
      act("run", "Run now", () => op("schedule-run", { id: s.id }), "primary"),
      remove,
    );
  }

  private async act(status: HTMLElement, run: () => Promise<unknown>): Promise<void> {
    status.dataset.kind = "busy";
    status.textContent = "…";
    try {
      await run();
      status.textContent = "";
    } catch (err) {
      status.dataset.kind = "error";
      status.textContent = failedText(err, "try again");
    }
  }

  /** Its last runs, newest first: when, what came of it, the job (a link), why. */
  private runs(s: Schedule): HTMLElement {
    if (s.runs.length === 0) return h("p", { class: "muted small" }, "No runs yet.");
    return h(
      "ol",
      { class: "runs", "aria-label": `Last runs of ${s.name}` },
      [...s.runs]
        .reverse()
        .map((r) =>
          h(
            "li",
            { class: `run o-${r.outcome}` },
            h("time", { datetime: r.at, title: r.at }, zonedClock(r.at, s.timeZone)),
            h("span", { class: `badge ${OUTCOME_TONES[r.outcome]}` }, r.outcome),
            r.job ? this.jobLink(r.job) : null,
            r.why ? h("span", { class: "why muted" }, r.why) : null,
            r.ended ? h("span", { class: "why muted" }, `over: ${r.ended.how}`) : null,
          ),
        ),
    );
  }

  private jobLink(id: string): HTMLElement {
    const row = this.ctx.live.rows.get(id);
    const name = row ? displayName(row) : null;
    return h(
      "a",
      { class: "job", href: `#/jobs/${encodeURIComponent(id)}` },
      name && name !== id ? `${name} (${id})` : id,
    );
  }
}

const idNumber = (id: string) => Number(id.slice(1)) || 0;

/** "Next run: Tue 10 Mar, 18:00 Europe/Berlin (in 3 h)", or why there is none. */
function nextRun(s: Schedule): Child[] {
  if (s.paused) return ["Paused: it runs only when you run it."];
  if (!s.nextAt) return ["It runs no more."];
  return [
    "Next run: ",
    h("time", { datetime: s.nextAt }, `${zonedClock(s.nextAt, s.timeZone)} ${s.timeZone}`),
    h("span", { class: "muted", "data-in": s.nextAt }, ` (${dueIn(s.nextAt, Date.now(), " ")})`),
    s.lastAt ? h("span", { class: "muted small" }, " · last ", timeAgo(s.lastAt)) : null,
  ];
}
