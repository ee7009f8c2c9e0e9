/**
 * `whoami` (protocol.md, "The hub's ops"): the caller as its transport knows it (the token it came
 * with, whether it may act) and the daemon's version. No core: nothing about the jobs.
 */
import { ROOST_VERSION } from "../version.js";
import { defineOp } from "./define.js";

export const whoamiOp = defineOp({
  name: "whoami",
  allow: ["hub"],
  acts: false,
  handler: (_core, _args, caller) => ({
    token: caller.tokenName ?? null,
    readOnly: caller.readOnly,
    daemon: { name: "roost", version: ROOST_VERSION },
  }),
});
