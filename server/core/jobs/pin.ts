/** `pin` (protocol.md, "The hub's ops"): a pinned row comes before the others; kept at once. */
import type { OpArgs } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";

export function pin(core: Core, args: OpArgs<"pin">): void {
  const job = core.registry.get(args.id);
  job.rec.pinned = args.pinned;
  core.registry.noted(job, true); // its place, not its content
}
