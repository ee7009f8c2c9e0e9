/**
 * roost.json's `notify` (docs/notify.md): hooks that get a POST when a row needs the user or a
 * schedule does. Its shape and its checks, which config.ts runs at start: a bad hook is refused
 * with where it is and what to write instead.
 */
import Type, { type Static } from "typebox";

/** The events a hook may ask for; `test` is `roost notify test`'s, sent to every hook. */
export const NOTIFY_EVENTS = [
  "blocked",
  "failed",
  "done",
  "schedule-needs-you",
  // a budget 80% spent, and all of it (core/budgets/)
  "budget-warning",
  "budget-exceeded",
] as const;
/** Named, sent by nothing yet (none now): kept so that a roost.json may list them. */
export const RESERVED_EVENTS = [] as const;
/** Words that stand for every event of a kind: `schedule` for `schedule-*`, `budget` for `budget-*`. */
const KINDS = ["schedule", "budget"] as const;
export const NOTIFY_FORMATS = ["json", "ntfy", "slack"] as const;

export type NotifyEvent = (typeof NOTIFY_EVENTS)[number] | (typeof RESERVED_EVENTS)[number] | "test";

export const NotifyHook = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    format: Type.Optional(Type.String()),
    events: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 20 })),
  },
  { additionalProperties: false },
);
export type NotifyHook = Static<typeof NotifyHook>;

const EVENT_WORDS: readonly string[] = [...NOTIFY_EVENTS, ...RESERVED_EVENTS, ...KINDS];

/** What is wrong with `notify[i]`, said as config.ts says a refusal; null when it is right. */
export function hookProblem(hook: NotifyHook, i: number): string | null {
  const at = `notify[${i}]`;
  let url: URL;
  try {
    url = new URL(hook.url);
  } catch {
    return `${at}.url: not a URL: write the whole address, https://ntfy.sh/my-topic`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return `${at}.url: ${url.protocol} is not http: or https: (a hook is sent by HTTP POST)`;
  if (hook.format !== undefined && !(NOTIFY_FORMATS as readonly string[]).includes(hook.format))
    return `${at}.format: ${JSON.stringify(hook.format)} is not a format roost sends: ${NOTIFY_FORMATS.join(", ")}`;
  if (hook.format === "ntfy" && url.pathname.split("/").filter(Boolean).length === 0)
    return `${at}.url: an ntfy hook's url names its topic: https://ntfy.sh/my-topic`;
  for (const [j, e] of (hook.events ?? []).entries())
    if (!EVENT_WORDS.includes(e))
      return `${at}.events[${j}]: ${JSON.stringify(e)} is not an event: ${EVENT_WORDS.join(", ")}`;
  return null;
}

/** Whether a hook asks for `event` (no `events`: every one roost sends; `test` always). */
export function wants(hook: NotifyHook, event: NotifyEvent): boolean {
  if (event === "test" || !hook.events) return true;
  return hook.events.some((e) => e === event || event.startsWith(`${e}-`));
}
