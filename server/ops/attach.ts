/** `attach` (terminals.md, "Watching and typing"): logic in core/terminals/viewers.ts. */
import { runningJob } from "../core/jobs/lifecycle.js";
import { defineOp, streamOf } from "./define.js";

export const attachOp = defineOp({
  name: "attach",
  allow: ["hub"],
  acts: false,
  relayed: true,
  stream: true,
  handler: (core, args, caller) => core.viewers.attachFor(streamOf(caller), runningJob(core, args.id)),
});
