/** `rename` (protocol.md, "The hub's ops"): the user's name for a job, by the name rules (names.ts). */
import type { OpArgs } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { Actor } from "../feed.js";
import { checkName } from "./names.js";

export function rename(core: Core, args: OpArgs<"rename">, actor: Actor): void {
  const job = core.registry.get(args.id); // an unknown job is not_found, whatever the name
  job.rec.userName = checkName(args.name);
  core.registry.changed(job, true);
  core.feed.record(job.rec.id, "rename", `renamed ${job.rec.userName}`, actor);
}
