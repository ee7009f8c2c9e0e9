/**
 * The notify hooks (docs/notify.md): roost.json's `notify`, each sent what it asks for, as it
 * happens: a row that comes to be blocked (or asks a new question), failed or done, a schedule
 * that comes to need the user. Each event is sent once per change, to each hook in its own format
 * (payloads.ts), without the daemon waiting on it (send.ts); a hook that never takes it is given up
 * with a line in the log and an entry in the feed.
 */
import { type Row, type Schedule, viewState } from "../../../sdk/ts/protocol/index.js";
import { type NotifyEvent, type NotifyHook, wants } from "../../notify-config.js";
import { type Actor, type Feed, ROOST } from "../feed.js";
import { type Happened, requestFor, rowWords } from "./payloads.js";
import { type Attempt, attempt, BACKOFF_MS, deliver } from "./send.js";

export interface NotifyParts {
  /** The hub's address, once it listens (the links are to its pages, never with a token). */
  hubUrl: () => Promise<string>;
  feed: Pick<Feed, "record">;
  /** roost.json's secrets hidden (secrets.ts): what an agent wrote may quote one. */
  redact: (text: string) => string;
}

/** `notify-test`'s answer for one hook: which (its place, format and host, never its url), and how it went. */
export interface HookResult {
  hook: number;
  format: string;
  host: string;
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** The event a row's state is, for the hooks: null when it is none of theirs. */
function rowEvent(row: Row): NotifyEvent | null {
  const view = viewState(row);
  if (view === "blocked") return "blocked";
  if (view === "failed") return "failed";
  if (view === "done" || (row.life === "running" && row.state === "done")) return "done";
  return null;
}

export class Notify {
  /** Each row's last event sent (with its question, for `blocked`): a change sends, a repeat does not. */
  private readonly last = new Map<string, string>();

  constructor(
    private readonly hooks: readonly NotifyHook[],
    private readonly parts: NotifyParts,
    /** The retries' waits (send.ts); a test may shorten them. */
    private readonly backoff: readonly number[] = BACKOFF_MS,
  ) {}

  get active(): boolean {
    return this.hooks.length > 0;
  }

  /** A row changed (its report, its life): sent on if it now is an event it was not. */
  rowChanged(row: () => Row): void {
    if (!this.active) return;
    const r = row();
    const event = rowEvent(r);
    const key = event === null ? null : `${event}\u0000${event === "blocked" ? (r.question ?? "") : ""}`;
    if (key === null) {
      this.last.delete(r.id);
      return;
    }
    if (this.last.get(r.id) === key) return;
    this.last.set(r.id, key);
    const words = rowWords(event!, r);
    void this.send({ event: event!, row: r, ...words }, `#/jobs/${encodeURIComponent(r.id)}`);
  }

  /** A job was removed: its last event is forgotten (a row id is never used again). */
  forget(id: string): void {
    this.last.delete(id);
  }

  /** A schedule came to need the user (schedules.ts says it once). */
  scheduleNeedsYou(s: Schedule): void {
    if (!this.active) return;
    void this.send(
      {
        event: "schedule-needs-you",
        row: null,
        schedule: s,
        title: `schedule ${s.id} ${JSON.stringify(s.name)} needs you`,
        message: s.needsYou ?? "",
      },
      "#/schedules",
    );
  }

  /** A budget 80% spent (`budget-warning`) or all of it (`budget-exceeded`): said once a day (core/budgets/). */
  budget(event: "budget-warning" | "budget-exceeded", row: Row, text: string): void {
    if (!this.active) return;
    const title = `${row.id} ${JSON.stringify(row.name)}: ${event === "budget-warning" ? "a budget is nearly spent" : "a budget is spent"}`;
    void this.send({ event, row, title, message: text }, `#/jobs/${encodeURIComponent(row.id)}`);
  }

  /** `roost notify test`: one attempt to each hook, and how each went. */
  async test(): Promise<HookResult[]> {
    const link = await this.parts.hubUrl();
    const h: Happened = {
      event: "test",
      row: null,
      link,
      title: "roost: a test of this hook",
      message: "it works",
    };
    return Promise.all(
      this.hooks.map(async (hook, i) => {
        const format = hook.format ?? "json";
        const a = await attempt(requestFor(format, hook.url, h));
        return { hook: i + 1, format, host: new URL(hook.url).host, ...this.said(a) };
      }),
    );
  }

  private said(a: Attempt): Attempt {
    return { ...a, error: a.error === null ? null : this.parts.redact(a.error) };
  }

  private async send(what: Omit<Happened, "link">, page: string): Promise<void> {
    const hooks = this.hooks.map((hook, i) => ({ hook, i })).filter(({ hook }) => wants(hook, what.event));
    if (hooks.length === 0) return;
    const base = await this.parts.hubUrl();
    const h: Happened = {
      ...what,
      title: this.parts.redact(what.title),
      message: this.parts.redact(what.message),
      link: new URL(page, base).toString(),
    };
    for (const { hook, i } of hooks) {
      const format = hook.format ?? "json";
      deliver(
        requestFor(format, hook.url, h),
        (a, n) => this.gaveUp(i, format, hook, what.event, this.said(a), n),
        this.backoff,
      );
    }
  }

  private gaveUp(
    i: number,
    format: string,
    hook: NotifyHook,
    event: NotifyEvent,
    a: Attempt,
    n: number,
  ): void {
    const which = `notify[${i}] (${format}, ${new URL(hook.url).host})`;
    const text = `${which}: gave up on a ${event} event after ${n} attempts: ${a.error}`;
    console.error(`roost: ${text}`);
    const actor: Actor = ROOST;
    this.parts.feed.record("notify", "notify", text, actor);
  }
}
