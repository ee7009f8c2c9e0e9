/** `respawn` (protocol.md, "roost's choices"): the job started again; logic in core/jobs/respawn.ts and core/jobs/start.ts. */
import { respawn } from "../core/jobs/respawn.js";
import { defineOp } from "./define.js";

export const respawnOp = defineOp({
  name: "respawn",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: async (core, args, caller) => ({
    job: await respawn(core, core.registry.get(args.id), caller.actor),
  }),
});
