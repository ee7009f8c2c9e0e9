/** `resize` (terminals.md, "Watching and typing"): a running job's terminal size. */
import type { OpArgs } from "../../sdk/ts/protocol/index.js";
import type { Core } from "./core.js";
import { runningJob } from "./lifecycle.js";

export async function resize(core: Core, args: OpArgs<"resize">): Promise<void> {
  const terminals = await core.terminals();
  await terminals.resize(runningJob(core, args.id).rec.id, args.cols, args.rows);
}
