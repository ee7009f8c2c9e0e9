/**
 * `resize` (protocol.md, `resize`; terminals.md, "Watching and typing"): a viewer's size, or, from
 * a caller that cannot view the job (an HTTP request), the job's own (viewers.ts).
 */
import type { OpArgs } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import { runningJob } from "../jobs/index.js";
import type { Watcher } from "./viewers.js";

export async function resize(core: Core, args: OpArgs<"resize">, watcher: Watcher | null): Promise<void> {
  const job = runningJob(core, args.id);
  const size = { cols: args.cols, rows: args.rows };
  if (watcher) await core.viewers.resizeFor(watcher, job, size);
  else await core.viewers.resizeOwn(job, size);
}
