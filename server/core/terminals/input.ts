/** `input` (terminals.md, "Watching and typing"): keystrokes typed into a running job's terminal. */
import type { OpArgs } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import { runningJob } from "../jobs/index.js";

export async function input(core: Core, args: OpArgs<"input">): Promise<void> {
  const terminals = await core.terminals();
  await terminals.write(runningJob(core, args.id).rec.id, args.data);
}
