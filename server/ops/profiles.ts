/** `profiles` (protocol.md, "The hub's ops"): what `dispatch` takes; logic in core/jobs/profiles.ts. */
import { profiles } from "../core/jobs/profiles.js";
import { defineOp } from "./define.js";

export const profilesOp = defineOp({
  name: "profiles",
  allow: ["hub"],
  acts: false,
  handler: (core) => profiles(core),
});
