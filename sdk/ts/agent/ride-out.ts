/**
 * A call that rides out a restart (docs/protocol.md, "Clients"): when roost goes away before it
 * answered (its connection lost, or refused while it starts again), the client waits for it, up to
 * `RIDE_OUT_MS`, and sends the same request again, with the same args. That is safe for what this
 * says may be sent again: a request with a `requestId` (roost answers a resend with what the first
 * made, `duplicate: true`: `spawn`, `send`, `handback`, a task's `add`, a `claim` with `next`), and
 * the ops that are the same done twice (a list, a watch, a claim of a task by id, a done or release
 * by its holder). Anything else fails `disconnected`, as before: the caller knows what it did.
 *
 * Node builtins only (none needed).
 */

/** How long a call waits for roost to come back before it fails. */
export const RIDE_OUT_MS = 30_000;

/** Ops that are the same done twice: a resend changes nothing the first did not. */
const SAME_AGAIN: ReadonlySet<string> = new Set(["peers", "watch", "whoami"]);

/** Whether `op` with `args` may be sent again after roost went away before it answered. */
export function mayResend(op: string, args: Record<string, unknown>): boolean {
  if (typeof args.requestId === "string" && args.requestId !== "") return true;
  // A task's add, and a claim of the next task, make something: only with their request id.
  if (op === "task") return args.action !== "add" && !(args.action === "claim" && args.next === true);
  return SAME_AGAIN.has(op);
}

/** Whether an error says roost was away: the connection lost, or none made (refused, no socket yet). */
export function roostAway(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "disconnected" || code === "ECONNREFUSED" || code === "ENOENT" || code === "ECONNRESET";
}
