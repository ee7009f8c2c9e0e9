/**
 * Notifications through the hub's service worker (sw.ts; docs/hub.md, "Notifications you can
 * answer"): a blocked row's carries its choices as actions (as many as the browser shows) and the
 * row's `asked`, so that a click on one answers that question from the service worker, without
 * opening the page, or is refused if the row asks something else by then. Where there is no
 * service worker (or it may not notify), the page's own notification is shown, without actions.
 */
import type { Row } from "./api.js";
import { displayName } from "./row-words.js";
import type { NoteData } from "./sw.js";

let registration: Promise<ServiceWorkerRegistration | null> = Promise.resolve(null);

/** Registers the service worker (once; a page that may act): its notifications may answer. */
export function registerWorker(): void {
  if (!("serviceWorker" in navigator)) return;
  registration = navigator.serviceWorker.register("sw.js", { scope: "./" }).then(
    async () => navigator.serviceWorker.ready,
    () => null,
  );
}

/** How many actions a notification shows here (Chrome: 2). */
const maxActions = (): number => (Notification as unknown as { maxActions?: number }).maxActions ?? 2;

/**
 * Shows a notification of `row` (null: the concierge's), through the service worker if it can,
 * else the page's own; `open` runs on a click on the page's own.
 */
export async function showNote(
  row: Row | null,
  title: string,
  body: string,
  tag: string,
  open: () => void,
): Promise<void> {
  const reg = await registration;
  if (reg && row) {
    const choices = row.state === "blocked" ? (row.choices ?? []) : [];
    const data: NoteData = {
      id: row.id,
      name: displayName(row),
      asked: row.asked ?? null,
      choices,
      question: row.question ?? "",
    };
    const actions = choices.slice(0, maxActions()).map((c, i) => ({ action: `choice-${i}`, title: c }));
    try {
      await reg.showNotification(title, { body, tag, data, actions } as NotificationOptions);
      return;
    } catch {
      // not allowed from here (the page's permission stubbed, a browser without actions): below
    }
  }
  try {
    const n = new Notification(title, { body, tag });
    n.onclick = () => {
      open();
      n.close();
    };
  } catch {
    // some browsers only notify from a service worker
  }
}
