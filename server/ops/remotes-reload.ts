/** `remotes-reload` (fleet.md): on the owner's socket only (roost.json holds the remotes' tokens); logic in server/fleet/remotes.ts. */
import { defineOp } from "./define.js";

export const remotesReloadOp = defineOp({
  name: "remotes-reload",
  allow: ["hub"],
  acts: true,
  socketOnly: true,
  handler: (core) => core.remotes.reload(),
});
