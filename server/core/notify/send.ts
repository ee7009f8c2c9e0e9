/**
 * A hook's POST (docs/notify.md, "Sending"): never awaited by the daemon's work, each attempt cut
 * after ATTEMPT_MS, a failure (no answer, an error, a status not 2xx) tried again after each of
 * BACKOFF_MS, then given up, said by the caller's `gaveUp`.
 */
import type { Request } from "./payloads.js";

/** The waits before the second, third and fourth attempts. */
export const BACKOFF_MS = [1_000, 5_000, 30_000] as const;
/** How long one attempt may take, answer included. */
export const ATTEMPT_MS = 10_000;

/** One attempt's outcome: the status answered, or why there was none. */
export interface Attempt {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** One POST of `req`, its body as JSON; never throws. */
export async function attempt(req: Request, timeoutMs = ATTEMPT_MS): Promise<Attempt> {
  try {
    const res = await fetch(req.url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "roost" },
      body: JSON.stringify(req.body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error", // a hook that moved is said, not followed with the body elsewhere
    });
    await res.arrayBuffer().catch(() => {}); // read to its end, so the connection is let go
    return res.ok
      ? { ok: true, status: res.status, error: null }
      : { ok: false, status: res.status, error: `answered ${res.status} ${res.statusText}`.trim() };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === "TimeoutError"
        ? `no answer within ${timeoutMs / 1000} s`
        : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { ok: false, status: null, error: why };
  }
}

/**
 * `req` sent until it is taken, at most 1 + BACKOFF_MS.length times; `gaveUp` is told the last
 * attempt's failure. The waits are timers that keep no process alive.
 */
export function deliver(
  req: Request,
  gaveUp: (last: Attempt, attempts: number) => void,
  backoff: readonly number[] = BACKOFF_MS,
): void {
  const go = async (n: number): Promise<void> => {
    const a = await attempt(req);
    if (a.ok) return;
    const wait = backoff[n];
    if (wait === undefined) return gaveUp(a, n + 1);
    setTimeout(() => void go(n + 1), wait).unref();
  };
  void go(0);
}
