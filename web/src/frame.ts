/**
 * The page's frame: the header (views, jobs that need you, the connection, read-only, Notify me,
 * Dispatch, help), the banner that says the daemon is away or the login gone, and `main`.
 */
import { askToNotify, mayAskToNotify, showAttention } from "./attention.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { openHelp } from "./help.js";

export type Nav = "jobs" | "events";

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
  const live = ctx.live;
  const connPill = h("span", { class: "conn", role: "status" });
  const roBadge = h(
    "span",
    { class: "ro-badge", hidden: true, title: "This token can watch, not act" },
    "read-only",
  );
  const attentionLink = h("a", { class: "attention", href: "#/", hidden: true });
  const dispatchBtn = h(
    "button",
    {
      type: "button",
      class: "primary",
      "aria-keyshortcuts": "d",
      onclick: () => ctx.openDispatch(),
      hidden: true,
    },
    "+ Dispatch",
  );
  const notifyBtn = h(
    "button",
    {
      type: "button",
      class: "ghost",
      hidden: true,
      title: "Get a browser notification when a job is blocked or fails",
      onclick: () => void askToNotify().finally(render),
    },
    "Notify me",
  );
  const helpBtn = h(
    "button",
    {
      type: "button",
      class: "ghost",
      "aria-keyshortcuts": "?",
      "aria-label": "Keyboard shortcuts",
      onclick: openHelp,
    },
    "?",
  );
  const navs = [
    h("a", { href: "#/", "data-nav": "jobs" }, "Jobs"),
    h("a", { href: "#/events", "data-nav": "events" }, "Events"),
  ];
  const banner = h("div", { class: "banner", role: "alert", hidden: true });
  const main = h("main", { id: "main", tabindex: "-1" });
  const announcer = h("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "true" });
  const skipToMain = (ev: Event) => {
    ev.preventDefault();
    main.focus();
  };

  document.body.append(
    h("a", { class: "skip", href: "#main", onclick: skipToMain }, "Skip to content"),
    h(
      "header",
      { class: "top" },
      h(
        "a",
        { class: "brand", href: "#/", "aria-label": "roost: all jobs" },
        h("span", { class: "logo" }, "◆"),
        "roost",
      ),
      h("nav", { class: "tabs", "aria-label": "Views" }, navs),
      attentionLink,
      h("span", { class: "spacer" }),
      connPill,
      roBadge,
      notifyBtn,
      dispatchBtn,
      helpBtn,
    ),
    banner,
    main,
    announcer,
  );

  const renderBanner = () => {
    const c = live.connection;
    if (c === "disconnected") {
      const secs = Math.max(0, Math.ceil((live.retryAt - Date.now()) / 1000));
      banner.replaceChildren(
        h("strong", null, "Disconnected from the daemon. "),
        `Reconnecting${secs > 0 ? ` in ${secs} s` : ""}… What you see may be out of date. `,
        h("button", { type: "button", onclick: () => live.retryNow() }, "Retry now"),
      );
      banner.hidden = false;
    } else if (c === "unauthorized") {
      banner.replaceChildren(
        h("strong", null, "Not logged in. "),
        "The token was revoked or the login expired: run ",
        h("code", null, "roost open"),
        " on the daemon's machine and open the link it prints.",
      );
      banner.hidden = false;
    } else banner.hidden = true;
  };

  function render(): void {
    const c = live.connection;
    connPill.className = `conn c-${c}`;
    connPill.textContent = CONNECTION_WORDS[c];
    document.body.classList.toggle("offline", c !== "live" && c !== "connecting");
    renderBanner();
    roBadge.hidden = !ctx.who?.readOnly;
    dispatchBtn.hidden = ctx.readOnly();
    notifyBtn.hidden = !mayAskToNotify();
    showAttention(live, attentionLink);
  }

  return {
    main,
    render,
    markNav(nav) {
      for (const a of navs) {
        if (a.dataset.nav === nav) a.setAttribute("aria-current", "page");
        else a.removeAttribute("aria-current");
      }
    },
    announce(text) {
      announcer.textContent = "";
      window.setTimeout(() => {
        announcer.textContent = text;
      }, 50);
    },
  };
}

const CONNECTION_WORDS = {
  live: "live",
  connecting: "connecting…",
  unauthorized: "logged out",
  disconnected: "disconnected",
} as const;
