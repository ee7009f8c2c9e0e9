/**
 * The page's frame: the header (views, the task board's counts, jobs that need you, the
 * connection, read-only, Notify…, Dispatch, help), the banner that says the daemon is away or the login gone, and `main`.
 */

import { bytesText, cpuText, resourceTotals } from "../../sdk/ts/protocol/resources-view.js";
import { canNotify, needYouCount, showCount } from "./attention.js";
import { needWords } from "./board-state.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { showFavicon } from "./favicon.js";
import { openHelp } from "./help.js";
import type { Live } from "./live.js";
import { openNotifySettings } from "./notify-settings.js";
import { followQueueCount } from "./queue-count.js";
import { followScheduleNeeds } from "./schedule-needs.js";
import { followSpend } from "./spend-header.js";

export type Nav = "jobs" | "events" | "board" | "schedules" | "queue" | "spend" | "concierge";

export interface Frame {
  main: HTMLElement;
  /** Draws the header and banner again (the connection, who the page is, the attention count). */
  render(): void;
  /** Marks the current view in the header. */
  markNav(nav: Nav): void;
  /** Says something to screen readers, through the one polite live region. */
  announce(text: string): void;
}

export function buildFrame(ctx: Ctx): Frame {
  return new PageFrame(ctx);
}

const CONNECTION_WORDS = {
  live: "live",
  connecting: "connecting…",
  unauthorized: "logged out",
  disconnected: "disconnected",
} as const;

/** The header's parts that `render` shows, hides or rewrites. */
interface HeaderParts {
  connPill: HTMLElement;
  /** The running jobs' CPU and memory, summed (docs/budgets.md, "Resources"). */
  usage: HTMLElement;
  roBadge: HTMLElement;
  attentionBtn: HTMLButtonElement;
  notifyBtn: HTMLButtonElement;
  dispatchBtn: HTMLButtonElement;
  helpBtn: HTMLButtonElement;
}

/** The "need you" badge pressed: the jobs view, filtered to what needs you (pressed again: every job). */
function showNeedYou(ctx: Ctx): void {
  const onRows = !location.hash || location.hash === "#/";
  ctx.triage.set({ state: onRows && ctx.triage.filter.state === "need" ? "" : "need" });
  if (!onRows) location.hash = "#/";
}

/** Made hidden: `render` shows each once it knows who the page is and what it may ask. */
function headerParts(ctx: Ctx): HeaderParts {
  return {
    connPill: h("span", { class: "conn", role: "status" }),
    usage: h("span", { class: "usage muted", hidden: true }),
    roBadge: h(
      "span",
      { class: "ro-badge", hidden: true, title: "This token can watch, not act" },
      "read-only",
    ),
    attentionBtn: h("button", {
      type: "button",
      class: "attention",
      hidden: true,
      "aria-pressed": "false",
      title: "Show only the jobs that need you (again: every job)",
      onclick: () => showNeedYou(ctx),
    }),
    notifyBtn: h(
      "button",
      {
        type: "button",
        class: "ghost",
        hidden: true,
        "aria-haspopup": "dialog",
        title: "Notifications: of what, while this page is in the background",
        onclick: openNotifySettings,
      },
      "Notify…",
    ),
    dispatchBtn: h(
      "button",
      {
        type: "button",
        class: "primary",
        "aria-keyshortcuts": "d",
        onclick: () => ctx.openDispatch(),
        hidden: true,
      },
      "+ Dispatch",
    ),
    helpBtn: h(
      "button",
      {
        type: "button",
        class: "ghost",
        "aria-keyshortcuts": "?",
        "aria-label": "Keyboard shortcuts",
        onclick: openHelp,
      },
      "?",
    ),
  };
}

function header(parts: HeaderParts, navs: HTMLAnchorElement[]): HTMLElement {
  const brand = h(
    "a",
    { class: "brand", href: "#/", "aria-label": "roost: all jobs" },
    h("span", { class: "logo" }, "◆"),
    "roost",
  );
  return h(
    "header",
    { class: "top" },
    brand,
    h("nav", { class: "tabs", "aria-label": "Views" }, navs),
    parts.attentionBtn,
    h("span", { class: "spacer" }),
    parts.usage,
    parts.connPill,
    parts.roBadge,
    parts.notifyBtn,
    parts.dispatchBtn,
    parts.helpBtn,
  );
}

/** What the banner says: the daemon is away (and when it is tried again), or the login is gone. */
function bannerText(live: Live): (Node | string)[] | null {
  if (live.connection === "disconnected") {
    const secs = Math.max(0, Math.ceil((live.retryAt - Date.now()) / 1000));
    return [
      h("strong", null, "Disconnected from the daemon. "),
      `Reconnecting${secs > 0 ? ` in ${secs} s` : ""}… What you see may be out of date. `,
      h("button", { type: "button", onclick: () => live.retryNow() }, "Retry now"),
    ];
  }
  if (live.connection === "unauthorized")
    return [
      h("strong", null, "Not logged in. "),
      "The token was revoked or the login expired: run ",
      h("code", null, "roost open"),
      " on the daemon's machine and open the link it prints.",
    ];
  return null;
}

class PageFrame implements Frame {
  readonly main = h("main", { id: "main", tabindex: "-1" });
  private readonly parts: HeaderParts;
  /** What on the board needs you, beside its tab ("1 blocked · 1 failed"), live from the `board` pushes. */
  private readonly boardCount = h("span", { class: "tab-count", hidden: true });
  /** The schedules that need you (three skips in a row), beside their tab: schedule-needs.ts. */
  private readonly scheduleCount = h("span", { class: "tab-count", hidden: true });
  /** Today's spend, beside the day's budget, on the Spend tab: spend-header.ts. */
  private readonly spendCount = h("span", { class: "tab-count spend-count", hidden: true });
  /** The merge queue's entries not ended yet, beside its tab: queue-count.ts. */
  private readonly queueCount = h("span", { class: "tab-count queue-count", hidden: true });
  private readonly navs = [
    h("a", { href: "#/", "data-nav": "jobs" }, "Jobs"),
    h("a", { href: "#/events", "data-nav": "events" }, "Events"),
    h("a", { href: "#/board", "data-nav": "board" }, "Board", this.boardCount),
    h("a", { href: "#/schedules", "data-nav": "schedules" }, "Schedules", this.scheduleCount),
    h("a", { href: "#/queue", "data-nav": "queue" }, "Queue", this.queueCount),
    h(
      "a",
      { href: "#/spend", "data-nav": "spend" },
      h("span", { class: "tab-word" }, "Spend"),
      this.spendCount,
    ),
    h("a", { href: "#/concierge", "data-nav": "concierge" }, "Concierge"),
  ];
  private readonly banner = h("div", { class: "banner", role: "alert", hidden: true });
  private readonly announcer = h("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "true" });

  constructor(private readonly ctx: Ctx) {
    this.parts = headerParts(ctx);
    ctx.triage.subscribe(this.render);
    followScheduleNeeds(ctx, (n) => {
      const words = n ? `${n} need${n === 1 ? "s" : ""} you` : "";
      this.scheduleCount.hidden = !words;
      this.scheduleCount.textContent = words;
      this.scheduleCount.parentElement?.setAttribute(
        "aria-label",
        words ? `Schedules: ${words}` : "Schedules",
      );
    });
    followQueueCount(ctx, this.queueCount);
    followSpend(ctx, this.spendCount);
    const skipToMain = (ev: Event) => {
      ev.preventDefault();
      this.main.focus();
    };
    document.body.append(
      h("a", { class: "skip", href: "#main", onclick: skipToMain }, "Skip to content"),
      header(this.parts, this.navs),
      this.banner,
      this.main,
      this.announcer,
    );
  }

  /** An arrow: it is handed on by itself (to `live.subscribe`, say), without the frame. */
  readonly render = (): void => {
    const { live } = this.ctx;
    const c = live.connection;
    const { connPill, roBadge, dispatchBtn, notifyBtn, attentionBtn } = this.parts;
    connPill.className = `conn c-${c}`;
    connPill.textContent = CONNECTION_WORDS[c];
    document.body.classList.toggle("offline", c !== "live" && c !== "connecting");
    this.renderBanner();
    roBadge.hidden = !this.ctx.who?.readOnly;
    dispatchBtn.hidden = this.ctx.readOnly();
    notifyBtn.hidden = !canNotify();
    const count = needYouCount(live);
    showCount(count);
    showFavicon(count > 0);
    // Kept while it filters, at 0 too: pressed again, it shows every job.
    const filtering = this.ctx.triage.filter.state === "need";
    attentionBtn.hidden = count === 0 && !filtering;
    attentionBtn.setAttribute("aria-pressed", String(filtering));
    attentionBtn.textContent = `${count} need${count === 1 ? "s" : ""} you`;
    this.renderBoardCount();
    this.renderUsage();
  };

  /** "cpu 112% · 1.2 GB": what the running jobs use together; hidden while none runs. */
  private renderUsage(): void {
    const t = resourceTotals([...this.ctx.live.rows.values()]);
    const { usage } = this.parts;
    usage.hidden = t.jobs === 0;
    const text = `cpu ${cpuText(t.cpu)} · ${bytesText(t.rss)}`;
    if (usage.textContent !== text) usage.textContent = text;
    usage.title = `${text}: ${t.jobs} running job${t.jobs === 1 ? "" : "s"}, ${t.procs} processes: CPU (100% = one core) and memory (RSS), together`;
  }

  markNav(nav: Nav): void {
    for (const a of this.navs) {
      if (a.dataset.nav === nav) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
  }

  announce(text: string): void {
    this.announcer.textContent = "";
    window.setTimeout(() => {
      this.announcer.textContent = text;
    }, 50);
  }

  /** What on the board needs you (blocked, failed), not what is open or finished: the page says that. */
  private renderBoardCount(): void {
    const words = needWords(this.ctx.board.counts, this.ctx.board.tasks);
    this.boardCount.hidden = !words;
    if (this.boardCount.textContent !== words) this.boardCount.textContent = words;
    // Said whole to a screen reader: "Board: 1 blocked · 1 failed".
    const tab = this.boardCount.parentElement;
    if (tab) tab.setAttribute("aria-label", words ? `Board: ${words}` : "Board");
  }

  private renderBanner(): void {
    const text = bannerText(this.ctx.live);
    if (text) this.banner.replaceChildren(...text);
    this.banner.hidden = !text;
  }
}
