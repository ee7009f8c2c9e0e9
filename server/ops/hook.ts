/** `hook` (protocol.md, "The agent's ops"): what a terminal agent's own hooks said; logic in core/jobs/hooked.ts. */
import { hookSaid } from "../core/jobs/index.js";
import { defineOp, socketConnection } from "./define.js";

export const hookOp = defineOp({
  name: "hook",
  allow: ["hub", "session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => hookSaid(core, socketConnection(caller), args),
});
