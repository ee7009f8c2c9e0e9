/**
 * The form that adds a schedule (`schedule-add`): when, profile and task, and, if wanted, its
 * name, what to do with runs missed while roost was down, and where its jobs run. The `when` is
 * read by the daemon as it is typed (`schedule-when`, which saves nothing): the form says it in
 * words with its next three runs, or what is wrong with it, before anything is saved.
 */

import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import { dueIn, zonedClock } from "../../sdk/ts/protocol/time-words.js";
import { failedText, get, op, type Schedule, type WhenPreview } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { cwdInput, labelled, nameInput, profileField, showProfiles } from "./launch-fields.js";

/** How long typing must pause before the `when` is read. */
const PREVIEW_AFTER_MS = 250;

const field = labelled("schedule");

export class ScheduleForm {
  readonly el: HTMLFormElement;
  private readonly when = h("input", {
    name: "when",
    required: true,
    maxlength: String(LIMITS.scheduleWhen),
    placeholder: "daily 18:00",
    autocomplete: "off",
    spellcheck: "false",
  });
  /** What the daemon read of `when`: its words and next runs, or what is wrong. */
  private readonly preview = h("div", { class: "when-preview", "aria-live": "polite" });
  private readonly status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  private readonly submit = h("button", { type: "submit", class: "primary" }, "Add the schedule");
  private readonly profileField = profileField(field);
  private timer: number | undefined;
  /** The last `when` asked about: an answer to an older one is dropped. */
  private asked = "";

  constructor(
    private readonly ctx: Ctx,
    private readonly added: (s: Schedule) => void,
  ) {
    this.el = h(
      "form",
      { class: "schedule-form", "aria-labelledby": "schedule-form-title" },
      h("h2", { id: "schedule-form-title" }, "Add a schedule"),
      field(
        "When",
        this.when,
        h(
          "small",
          { class: "muted" },
          'every 30m · daily 18:00 · weekdays 09:00 · cron "0 9 * * 1", then optionally tz Europe/Berlin',
        ),
      ),
      this.preview,
      this.profileField,
      field(
        "Task",
        h("textarea", { name: "task", rows: "3", required: true, placeholder: "What should each job do?" }),
      ),
      h(
        "div",
        { class: "field-row" },
        field("Name", nameInput()),
        field(
          "Runs missed while roost was down",
          h(
            "select",
            { name: "missed" },
            h("option", { value: "skip" }, "skip them (say how many)"),
            h("option", { value: "once" }, "one job for them all"),
          ),
        ),
      ),
      field("Working directory", cwdInput("the profile's, or the daemon's home")),
      this.status,
      h("div", { class: "dialog-bar" }, this.submit),
    );
    showProfiles(this.profileField.querySelector("select")!, ctx.profiles);
    this.when.addEventListener("input", () => {
      window.clearTimeout(this.timer);
      this.timer = window.setTimeout(() => void this.read(), PREVIEW_AFTER_MS);
    });
    this.el.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (!this.submit.disabled) void this.send();
    });
  }

  dispose(): void {
    window.clearTimeout(this.timer);
  }

  /** The daemon's reading of `when`, shown under it. */
  private async read(): Promise<void> {
    const when = this.when.value.trim();
    this.asked = when;
    if (!when) {
      this.preview.replaceChildren();
      return;
    }
    try {
      const r = await get<WhenPreview>(`schedule-when?${new URLSearchParams({ when })}`);
      if (this.asked === when) this.showPreview(r);
    } catch (err) {
      if (this.asked !== when) return;
      this.preview.dataset.kind = "error";
      this.preview.replaceChildren(h("p", null, (err as Error).message));
    }
  }

  private showPreview(r: WhenPreview): void {
    this.preview.dataset.kind = "ok";
    this.preview.replaceChildren(
      h("p", null, h("strong", null, r.words), h("span", { class: "muted" }, ` · times in ${r.timeZone}`)),
      h(
        "ol",
        { class: "next-runs", "aria-label": "Its next runs" },
        r.next.map((t) =>
          h(
            "li",
            null,
            h("time", { datetime: t }, zonedClock(t, r.timeZone)),
            h("span", { class: "muted" }, ` ${dueIn(t, Date.now(), " ")}`),
          ),
        ),
      ),
    );
  }

  private async send(): Promise<void> {
    const data = new FormData(this.el);
    const text = (k: string) => String(data.get(k) ?? "").trim();
    const launch: Record<string, string> = { profile: text("profile"), task: String(data.get("task") ?? "") };
    if (text("cwd")) launch.cwd = text("cwd");
    const args: Record<string, unknown> = { when: text("when"), launch, missed: text("missed") || "skip" };
    if (text("name")) args.name = text("name");
    this.submit.disabled = true;
    this.status.dataset.kind = "busy";
    this.status.textContent = "Adding…";
    try {
      const { schedule } = await op<{ schedule: Schedule }>("schedule-add", args);
      this.status.textContent = "";
      this.el.reset();
      this.preview.replaceChildren();
      this.added(schedule);
      this.ctx.announce(`Added the schedule ${schedule.name} (${schedule.id})`);
    } catch (err) {
      this.status.dataset.kind = "error";
      this.status.textContent = failedText(err, "see whether it is listed before adding it again");
    } finally {
      this.submit.disabled = false;
    }
  }
}
