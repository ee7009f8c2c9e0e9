/**
 * `pending` (protocol.md, "The hub's ops"): a job's replies not yet taken (acked by its agent, or
 * typed into its terminal), oldest first, without their request ids.
 */
import type { OpArgs, OpResult } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";

export function pending(core: Core, args: OpArgs<"pending">): OpResult<"pending"> {
  const job = core.registry.get(args.id);
  return {
    replies: core.store
      .pendingReplies(job.rec.id)
      .map(({ seq, text, mode, kind, at }) => ({ seq, text, mode, kind, at })),
  };
}
