/**
 * The daemon's HTTP API, same origin: the login cookie goes with every request, the page never
 * sees the token. Paths are relative, so that the hub also works under a tunnel's path prefix.
 */

import type { ConciergeStatus, StandingOrder } from "../../sdk/ts/protocol/concierge.js";
import type { BoardTask } from "../../sdk/ts/protocol/ops/task.js";
import type { OpResult } from "../../sdk/ts/protocol/ops.js";
import type { QueueEntry } from "../../sdk/ts/protocol/queue.js";
import type { Schedule, ScheduleEvent } from "../../sdk/ts/protocol/schedules.js";
import type { BoardCounts, FeedEntry, RemoteStatus, Row } from "../../sdk/ts/protocol/schema.js";

export type {
  BoardCounts,
  BoardTask,
  ConciergeStatus,
  FeedEntry,
  QueueEntry,
  RemoteStatus,
  Row,
  Schedule,
  ScheduleEvent,
  StandingOrder,
};
/** A `when` read by the daemon (`schedule-when`): in words, its time zone, its next runs. */
export type WhenPreview = OpResult<"schedule-when">;

export type Profile = OpResult<"profiles">["profiles"][number];
export type WhoAmI = OpResult<"whoami">;
/** A reply not yet taken by the job's agent (`pending`). */
export type PendingReply = OpResult<"pending">["replies"][number];

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
  }
  /** Worth sending again with the same requestId: it may not have arrived. */
  get retryable(): boolean {
    return (
      this.code === "network" || this.code === "busy" || this.code === "rate_limited" || this.status >= 500
    );
  }
}

export const apiUrl = (path: string) => new URL(`api/${path}`, document.baseURI).toString();

export function wsUrl(path: string): string {
  const url = new URL(`api/${path}`, document.baseURI);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

async function answer<T>(res: Promise<Response>): Promise<T> {
  let r: Response;
  try {
    r = await res;
  } catch {
    throw new ApiError("the daemon did not answer (it may be restarting): try again", "network", 0);
  }
  let body: { ok?: boolean; result?: T; error?: string; code?: string };
  try {
    body = await r.json();
  } catch {
    throw new ApiError(`the daemon answered HTTP ${r.status}`, "http", r.status);
  }
  if (!body.ok) throw new ApiError(body.error ?? `HTTP ${r.status}`, body.code ?? "http", r.status);
  return body.result as T;
}

/** `POST /api/<op>` with a JSON body. */
export function op<T = Record<string, never>>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  return answer<T>(
    fetch(apiUrl(name), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(args),
      credentials: "same-origin",
    }),
  );
}

export function get<T>(path: string): Promise<T> {
  return answer<T>(fetch(apiUrl(path), { credentials: "same-origin" }));
}

/** A request id (1–64 of A-Za-z0-9_.:-), made once per user action and sent again on a retry. */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  const rand = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `web.${Date.now().toString(36)}.${rand}`;
}

/**
 * The requestId of one form's action: made when first sent, the same when sent again (a retry),
 * a new one once the form is changed (a new action) or the action went through.
 */
export class ActionId {
  private id: string | null = null;

  constructor(form: HTMLFormElement) {
    form.addEventListener("input", () => this.done());
  }

  get(): string {
    this.id ??= newRequestId();
    return this.id;
  }

  done(): void {
    this.id = null;
  }
}

/** "Failed: why", with how to retry (`retry`) when sending again may work and is safe. */
export function failedText(err: unknown, retry: string): string {
  if (!(err instanceof ApiError)) return `Failed: ${err instanceof Error ? err.message : String(err)}`;
  return `Failed: ${err.message}${err.retryable ? ` — ${retry}` : ""}`;
}

export type Message = Record<string, unknown>;

/**
 * A roost WebSocket's messages, parsed: the first is the op's answer (`{ok, result}` or
 * `{ok: false, error}`), each one after it an event. One that is not JSON is skipped.
 */
export function onMessages(
  ws: WebSocket,
  answer: (msg: Message) => void,
  event: (msg: Message) => void,
): void {
  let first = true;
  ws.onmessage = (ev) => {
    let msg: Message;
    try {
      msg = JSON.parse(String(ev.data));
    } catch {
      return;
    }
    if (first) {
      first = false;
      answer(msg);
    } else event(msg);
  };
}
