/**
 * `reorder` (protocol.md, "roost's choices"): the named jobs go first, in the order given; the
 * others keep theirs after them. Only the jobs whose place changed are written.
 */
import { type OpArgs, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";

export function reorder(core: Core, args: OpArgs<"reorder">): void {
  if (new Set(args.ids).size !== args.ids.length)
    throw new RoostError("bad_request", "ids names a job twice");
  const named = args.ids.map((id) => core.registry.get(id));
  const others = core.registry.all().filter((j) => !args.ids.includes(j.rec.id));
  others.sort((a, b) => a.rec.order - b.rec.order);
  [...named, ...others].forEach((job, i) => {
    if (job.rec.order === i) return;
    job.rec.order = i;
    core.registry.noted(job, true); // its place, not its content
  });
}
