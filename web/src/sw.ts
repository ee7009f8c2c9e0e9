/**
 * The hub's service worker (docs/hub.md, "Notifications you can answer"), built to `sw.js` beside
 * index.html so that its scope is the hub's. It shows nothing itself: the page shows a blocked
 * row's notification through it (notify.ts), with the row's choices as actions and the row's
 * `asked` in its data. A click on an action answers the row from here, without opening the page:
 * `POST api/reply` with the login cookie, as the page's own requests go, and `ifAsked`, so an
 * answer to a question the row no longer asks is refused (`conflict`) and nothing is sent; what
 * happened is said in a notification in its place. A click on the notification's body opens the
 * hub (or brings an open one forward) on that row. A message `{type: "roost-notification-click"}`
 * runs the same click (what a test can do where the browser shows no notification).
 *
 * It imports nothing: a module of its own, no chunk shared with the page.
 */

/** What a notification of a row carries (notify.ts makes it). */
export interface NoteData {
  id: string;
  name: string;
  asked: number | null;
  choices: string[];
  question: string;
}

interface NoteClick {
  action: string;
  notification: { data: unknown; close(): void; tag?: string };
}

interface WindowClient {
  url: string;
  focus(): Promise<unknown>;
  navigate(url: string): Promise<unknown>;
}

/** The service worker's global, as much of it as is used here (the page's lib is DOM's). */
interface SwGlobal {
  registration: {
    scope: string;
    showNotification(title: string, opts: Record<string, unknown>): Promise<void>;
  };
  clients: {
    matchAll(opts: { type: "window"; includeUncontrolled: boolean }): Promise<WindowClient[]>;
    openWindow(url: string): Promise<unknown>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: string, fn: (ev: SwEvent) => void): void;
}

/** An event of the worker's (install, activate, notificationclick, message): what is used of it. */
interface SwEvent {
  waitUntil(p: Promise<unknown>): void;
  action?: string;
  notification?: NoteClick["notification"];
  data?: unknown;
  ports?: readonly MessagePort[];
}

const sw = self as unknown as SwGlobal;

/** The outcome of a click, for the test's message and the notification that says it. */
export interface ClickOutcome {
  answered?: string;
  refused?: { code: string; error: string };
  opened?: string;
}

/** A notification click: an action answers with its choice; the body opens the hub on the row. */
async function onClick(click: NoteClick): Promise<ClickOutcome> {
  const data = click.notification.data as NoteData | null;
  if (!data?.id) return {};
  const at = /^choice-(\d+)$/.exec(click.action);
  const choice = at ? data.choices[Number(at[1])] : undefined;
  if (choice === undefined) return { opened: await open(data.id) };
  click.notification.close();
  return answer(data, choice);
}

async function answer(data: NoteData, choice: string): Promise<ClickOutcome> {
  const args: Record<string, unknown> = {
    id: data.id,
    text: choice,
    // One per question and choice: a second click on the same action is the daemon's duplicate.
    requestId: `notify.${data.id}.${data.asked ?? "x"}.${data.choices.indexOf(choice)}`.slice(0, 64),
  };
  if (data.asked !== null) args.ifAsked = data.asked;
  let outcome: ClickOutcome;
  try {
    const res = await fetch(new URL("api/reply", sw.registration.scope), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(args),
      credentials: "same-origin",
    });
    const body = (await res.json()) as { ok?: boolean; error?: string; code?: string };
    outcome = body.ok
      ? { answered: choice }
      : { refused: { code: body.code ?? "http", error: body.error ?? `HTTP ${res.status}` } };
  } catch (err) {
    outcome = { refused: { code: "network", error: (err as Error).message } };
  }
  await say(data, choice, outcome).catch(() => {});
  return outcome;
}

/** What became of the answer, in a notification in the row's place (the same tag). */
function say(data: NoteData, choice: string, outcome: ClickOutcome): Promise<void> {
  const tag = `roost-${data.id}`;
  if (outcome.answered !== undefined)
    return sw.registration.showNotification(`${data.name}: answered “${choice}”`, {
      body: data.question,
      tag,
      data: { ...data, choices: [] },
    });
  const conflict = outcome.refused?.code === "conflict";
  return sw.registration.showNotification(
    conflict ? `${data.id} now asks something else` : `${data.name}: “${choice}” was not sent`,
    {
      body: conflict
        ? "Nothing was sent: open the hub to read what it asks now."
        : (outcome.refused?.error ?? ""),
      tag,
      data: { ...data, choices: [] },
    },
  );
}

/** The hub on the row: an open window of it brought forward, else a new one. */
async function open(id: string): Promise<string> {
  const url = new URL(`#/jobs/${encodeURIComponent(id)}`, sw.registration.scope).toString();
  const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
  const hub = windows.find((w) => w.url.startsWith(sw.registration.scope));
  if (hub) {
    await hub.navigate(url).catch(() => {});
    await hub.focus().catch(() => {});
  } else await sw.clients.openWindow(url);
  return url;
}

sw.addEventListener("install", () => void sw.skipWaiting());
sw.addEventListener("activate", (ev) => ev.waitUntil(sw.clients.claim()));
sw.addEventListener("notificationclick", (ev) => ev.waitUntil(onClick(ev as NoteClick & SwEvent)));
sw.addEventListener("message", (ev) => {
  const msg = ev.data as { type?: string; action?: string; data?: NoteData } | null;
  if (msg?.type !== "roost-notification-click") return;
  const click: NoteClick = {
    action: msg.action ?? "",
    notification: { data: msg.data ?? null, close: () => {} },
  };
  ev.waitUntil(onClick(click).then((outcome) => ev.ports?.[0]?.postMessage(outcome)));
});
