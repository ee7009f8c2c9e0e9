/** `ack` (protocol.md, `ack`): logic in core/jobs/agents.ts and core/jobs/replies.ts. */
import { agentAck } from "../core/jobs/agents.js";
import { defineOp, socketConnection } from "./define.js";

export const ackOp = defineOp({
  name: "ack",
  allow: ["hub", "session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => agentAck(core, socketConnection(caller), args),
});
