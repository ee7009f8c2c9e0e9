/**
 * The browser hub: the page's frame (header, connection, dialogs), hash routing (`#/`,
 * `#/jobs/<id>`, `#/events`), the keyboard shortcuts, and attention (title count, notifications).
 */
import "./style.css";
import { ApiError, get, newRequestId, op, type Profile, type Row, type WhoAmI } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h, tickTimes, typing } from "./dom.js";
import { Live } from "./live.js";
import { eventsView, jobView } from "./pages.js";
import { displayName, needsAttention } from "./row.js";
import { rowsView, type View } from "./rows.js";

const live = new Live();
const announcer = h("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "true" });
const ctx: Ctx = {
  live,
  who: null,
  profiles: [],
  readOnly: () => ctx.who?.readOnly !== false,
  announce(text) {
    announcer.textContent = "";
    window.setTimeout(() => {
      announcer.textContent = text;
    }, 50);
  },
  openDispatch: () => openDispatch(),
};

// ---- the frame ----------------------------------------------------------------------------------

const connPill = h("span", { class: "conn", role: "status" });
const roBadge = h(
  "span",
  { class: "ro-badge", hidden: true, title: "This token can watch, not act" },
  "read-only",
);
const attentionLink = h("a", { class: "attention", href: "#/", hidden: true });
const dispatchBtn = h(
  "button",
  { type: "button", class: "primary", "aria-keyshortcuts": "d", onclick: () => openDispatch(), hidden: true },
  "+ Dispatch",
);
const notifyBtn = h(
  "button",
  {
    type: "button",
    class: "ghost",
    hidden: true,
    title: "Get a browser notification when a job is blocked or fails",
    onclick: () => void askNotify(),
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
    onclick: () => openHelp(),
  },
  "?",
);
const navJobs = h("a", { href: "#/", "data-nav": "jobs" }, "Jobs");
const navEvents = h("a", { href: "#/events", "data-nav": "events" }, "Events");
const banner = h("div", { class: "banner", role: "alert", hidden: true });
const main = h("main", { id: "main", tabindex: "-1" });

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
    h("nav", { class: "tabs", "aria-label": "Views" }, navJobs, navEvents),
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

function skipToMain(ev: Event): void {
  ev.preventDefault();
  main.focus();
}

function renderFrame(): void {
  const c = live.connection;
  connPill.className = `conn c-${c}`;
  connPill.textContent =
    c === "live"
      ? "live"
      : c === "connecting"
        ? "connecting…"
        : c === "unauthorized"
          ? "logged out"
          : "disconnected";
  document.body.classList.toggle("offline", c !== "live" && c !== "connecting");
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
  const ro = ctx.readOnly();
  roBadge.hidden = !ctx.who?.readOnly;
  dispatchBtn.hidden = ro;
  notifyBtn.hidden = !("Notification" in window) || Notification.permission !== "default";
  // Attention: blocked or failed jobs, in the title and the header.
  const count = [...live.rows.values()].filter(needsAttention).length;
  const base = document.title.replace(/^\(\d+\) /, "");
  document.title = count ? `(${count}) ${base}` : base;
  attentionLink.hidden = count === 0;
  attentionLink.textContent = `${count} need${count === 1 ? "s" : ""} you`;
}

// ---- attention: notifications ----------------------------------------------------------------

async function askNotify(): Promise<void> {
  try {
    await Notification.requestPermission();
  } finally {
    renderFrame();
  }
}

live.onRow(({ before, after }) => {
  if (!before) return; // the first rows, or a new job: nothing turned
  const turned = (after.state === "blocked" || after.state === "failed") && before.state !== after.state;
  if (!turned) return;
  const what =
    after.state === "blocked" ? (after.question ?? "it is waiting for you") : (after.error ?? "it failed");
  ctx.announce(`${displayName(after)} is ${after.state}: ${what}`);
  notify(after, what);
});

function notify(row: Row, what: string): void {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible" && document.hasFocus()) return; // the page says it already
  try {
    const n = new Notification(`${displayName(row)} is ${row.state}`, { body: what, tag: `roost-${row.id}` });
    n.onclick = () => {
      window.focus();
      location.hash = `#/jobs/${row.id}`;
      n.close();
    };
  } catch {
    // some browsers only notify from a service worker
  }
}

// ---- who, profiles ----------------------------------------------------------------------------

let lastReadOnly: boolean | null = null;
async function loadWho(): Promise<void> {
  try {
    ctx.who = await get<WhoAmI>("whoami");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) live.connection = "unauthorized";
    renderFrame();
    return;
  }
  if (!ctx.who.readOnly) {
    try {
      ctx.profiles = (await get<{ profiles: Profile[] }>("profiles")).profiles;
    } catch {
      // the dispatch form says so when opened
    }
  }
  if (lastReadOnly !== ctx.who.readOnly) {
    lastReadOnly = ctx.who.readOnly;
    route(); // the views draw their buttons (or not) for who the page is
  }
  renderFrame();
}
// Again after a reconnection: the daemon may have come back with other tokens.
live.onConnect((again) => {
  if (again || !ctx.who) void loadWho();
});
live.subscribe(renderFrame);

// ---- routing ------------------------------------------------------------------------------------

let view: View | null = null;

function route(): void {
  const hash = location.hash || "#/";
  view?.dispose();
  document.title = "roost";
  const job = /^#\/jobs\/([^/?]+)/.exec(hash);
  let nav = "jobs";
  if (job) view = jobView(ctx, decodeURIComponent(job[1]!));
  else if (hash.startsWith("#/events")) {
    const q = new URLSearchParams(hash.split("?")[1] ?? "");
    view = eventsView(ctx, q.get("job"));
    document.title = "roost: events";
    nav = "events";
  } else view = rowsView(ctx);
  main.replaceChildren(view.el);
  for (const a of [navJobs, navEvents]) {
    if (a.dataset.nav === nav) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  renderFrame();
}
window.addEventListener("hashchange", () => {
  route();
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
});

// ---- dispatch ---------------------------------------------------------------------------------

let dispatchDialog: HTMLDialogElement | null = null;

function openDispatch(): void {
  if (ctx.readOnly()) return;
  dispatchDialog ??= makeDispatch();
  document.body.append(dispatchDialog);
  const select = dispatchDialog.querySelector<HTMLSelectElement>("select[name=profile]")!;
  const chosen = select.value;
  select.replaceChildren(
    ...ctx.profiles.map((p) =>
      h(
        "option",
        { value: p.name, selected: p.name === chosen },
        p.description ? `${p.name} — ${p.description}` : p.name,
      ),
    ),
  );
  if (!ctx.profiles.length) select.append(h("option", { value: "" }, "no profiles (reconnecting?)"));
  dispatchDialog.showModal();
  select.focus();
}

function makeDispatch(): HTMLDialogElement {
  let requestId: string | null = null;
  const status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "primary" }, "Dispatch");
  const field = (label: string, control: HTMLElement, hint?: string) => {
    control.id = `dispatch-${control.getAttribute("name")}`;
    if (hint) control.setAttribute("aria-describedby", `${control.id}-hint`);
    return h(
      "div",
      { class: "field" },
      h("label", { for: control.id }, label),
      control,
      hint ? h("small", { class: "muted", id: `${control.id}-hint` }, hint) : null,
    );
  };
  const form = h(
    "form",
    { method: "dialog", class: "dispatch-form" },
    h("h2", { id: "dispatch-title" }, "Dispatch a job"),
    field("Profile", h("select", { name: "profile", required: true })),
    field("Task", h("textarea", { name: "task", rows: "4", placeholder: "What should it do?" })),
    field(
      "Name",
      h("input", { name: "name", maxlength: "100", placeholder: "optional", autocomplete: "off" }),
    ),
    field(
      "Working directory",
      h("input", {
        name: "cwd",
        placeholder: "the daemon's default",
        autocomplete: "off",
        spellcheck: "false",
      }),
      "An absolute path on the daemon's machine.",
    ),
    status,
    h(
      "div",
      { class: "dialog-bar" },
      h("button", { type: "button", onclick: () => dialog.close() }, "Cancel"),
      submit,
    ),
  );
  const dialog = h("dialog", { class: "dialog", "aria-labelledby": "dispatch-title" }, form);
  // A changed form is a new action; the same one sent again (a retry) keeps its requestId.
  form.addEventListener("input", () => {
    requestId = null;
  });
  form.querySelector("textarea")!.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (submit.disabled) return;
    const data = new FormData(form);
    const args: Record<string, unknown> = { profile: String(data.get("profile") ?? "") };
    for (const k of ["task", "name", "cwd"]) {
      const v = String(data.get(k) ?? "").trim();
      if (v) args[k] = k === "task" ? String(data.get(k)) : v;
    }
    requestId ??= newRequestId();
    args.requestId = requestId;
    submit.disabled = true;
    status.dataset.kind = "busy";
    status.textContent = "Dispatching…";
    try {
      const { job } = await op<{ job: Row; duplicate?: boolean }>("dispatch", args);
      requestId = null;
      status.textContent = "";
      form.reset();
      dialog.close();
      ctx.announce(`Dispatched ${displayName(job)} (${job.id})`);
      if (!location.hash.startsWith("#/jobs/") && !location.hash.startsWith("#/events")) {
        requestAnimationFrame(() =>
          document.querySelector<HTMLElement>(`li.row[data-id="${job.id}"]`)?.focus(),
        );
      }
    } catch (err) {
      status.dataset.kind = "error";
      status.textContent = `Failed: ${(err as Error).message}${err instanceof ApiError && err.retryable ? " — press Dispatch again to retry (it will not start twice)" : ""}`;
    } finally {
      submit.disabled = false;
    }
  });
  return dialog;
}

// ---- help ---------------------------------------------------------------------------------------

const SHORTCUTS: [string, string][] = [
  ["j / k", "next / previous job"],
  ["Enter", "open the focused job"],
  ["r", "reply to the focused job"],
  ["1 – 9", "pick a choice of the focused blocked job"],
  ["p", "pin or unpin the focused job"],
  ["Alt + ↑ / ↓", "move the focused job up or down"],
  ["d", "dispatch a job"],
  ["g j", "go to the jobs"],
  ["g e", "go to the events"],
  ["Esc", "close a dialog or form; from a job's page, back to the jobs"],
  ["?", "this help"],
];
let helpDialog: HTMLDialogElement | null = null;
function openHelp(): void {
  helpDialog ??= h(
    "dialog",
    { class: "dialog help", "aria-labelledby": "help-title" },
    h("h2", { id: "help-title" }, "Keyboard shortcuts"),
    h(
      "table",
      null,
      h(
        "tbody",
        null,
        SHORTCUTS.map(([k, what]) =>
          h("tr", null, h("th", { scope: "row" }, h("kbd", null, k)), h("td", null, what)),
        ),
      ),
    ),
    h(
      "p",
      { class: "muted small" },
      "In a job's terminal every key goes to the job: Ctrl+] leaves it (or click outside it).",
    ),
    h(
      "form",
      { method: "dialog", class: "dialog-bar" },
      h("button", { type: "submit", class: "primary" }, "Close"),
    ),
  );
  document.body.append(helpDialog);
  helpDialog.showModal();
}

// ---- keyboard -----------------------------------------------------------------------------------

let pendingG = 0;
document.addEventListener("keydown", (ev) => {
  if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey) return;
  if (document.querySelector("dialog[open]")) return;
  if (typing(ev.target)) return;
  const cur = view?.current?.() ?? null;
  if (ev.altKey) return; // Alt+arrows: the row's own handler
  const g = Date.now() - pendingG < 1500;
  pendingG = 0;
  if (g && (ev.key === "e" || ev.key === "j" || ev.key === "h")) {
    ev.preventDefault();
    location.hash = ev.key === "e" ? "#/events" : "#/";
    return;
  }
  switch (ev.key) {
    case "g":
      pendingG = Date.now();
      return;
    case "?":
      openHelp();
      break;
    case "j":
    case "k":
      view?.step?.(ev.key === "j" ? 1 : -1);
      break;
    case "Enter":
      if (!(ev.target instanceof HTMLLIElement) || !cur) return;
      location.hash = `#/jobs/${cur.row.id}`;
      break;
    case "r":
      if (!cur) return;
      cur.openReply();
      break;
    case "d":
      if (ctx.readOnly()) return;
      openDispatch();
      break;
    case "p":
      if (!cur || ctx.readOnly()) return;
      cur.togglePin();
      break;
    case "Escape":
      if (!location.hash.startsWith("#/jobs/")) return;
      location.hash = "#/";
      break;
    default:
      if (/^[1-9]$/.test(ev.key) && cur && !ctx.readOnly()) {
        cur.choose(Number(ev.key));
        break;
      }
      return;
  }
  ev.preventDefault();
});

// ---- go -----------------------------------------------------------------------------------------

window.setInterval(() => {
  tickTimes();
  if (live.connection === "disconnected") renderFrame();
}, 1000);
route();
// Who the page speaks as first, so that a read-only page never shows a button, nor an owner's a
// read-only flash; then the rows.
void loadWho().finally(() => live.start());
