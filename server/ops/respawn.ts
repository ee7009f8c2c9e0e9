/** `respawn` (protocol.md, "roost's choices"): the job started again; logic in core/respawn.ts and core/lifecycle.ts. */
import { respawn } from "../core/respawn.js";
import { defineOp } from "./define.js";

export const respawnOp = defineOp({
  name: "respawn",
  allow: ["hub"],
  acts: true,
  handler: async (core, args, caller) => ({
    job: await respawn(core, core.registry.get(args.id), caller.actor),
  }),
});
