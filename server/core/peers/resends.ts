/**
 * A peer item's request id (`send`, `handback`: docs/protocol.md, "The peer ops"): the store keeps,
 * in the commit that saves the item, which item a session's request made, so that the same request
 * sent again (its answer lost to a restart) is answered what the first did, `duplicate: true`, and
 * the item is not sent twice.
 */
import type { OpResult } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { LiveJob } from "../jobs/index.js";

/** What a request made: the item's receiver and seq (kept by `rememberRequest`). */
interface Made {
  to: string;
  seq: number;
}

/** The answer to a resend of `op` by `session` with `requestId`, or null when it is a first. */
export function resentItem(
  core: Core,
  session: LiveJob,
  op: "send" | "handback",
  requestId: string | undefined,
): (OpResult<"send"> & { duplicate: true }) | null {
  if (!requestId) return null;
  const made = core.store.requestAnswer(session.rec.id, requestId, op) as Made | null;
  if (!made) return null;
  const to = core.registry.find(made.to);
  const name = to ? core.registry.nameOf(to) : made.to;
  // Still waiting for a receiver that is away: queued, as the first was; else it reached it.
  const waiting =
    to && to.link === null && core.store.pendingReplies(to.rec.id).some((r) => r.seq === made.seq);
  return { outcome: waiting ? "queued" : "delivered", to: { id: made.to, name }, duplicate: true };
}

/** What `sendItem` keeps of a request in the item's commit: the request, the op it was. */
export const requestOf = (session: LiveJob, op: "send" | "handback", requestId: string | undefined) =>
  requestId ? { session: session.rec.id, id: requestId, op } : undefined;
