/** `report` (protocol.md, "The agent's ops"): the agent's state for its row; logic in core/jobs/agents.ts. */
import { report } from "../core/jobs/agents.js";
import { defineOp, socketConnection } from "./define.js";

export const reportOp = defineOp({
  name: "report",
  allow: ["hub", "session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => report(core, socketConnection(caller), args),
});
