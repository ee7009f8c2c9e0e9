/** `reply` (protocol.md, "The hub's ops"): the user's answer to a job; logic in core/jobs/reply.ts. */
import { reply } from "../core/jobs/reply.js";
import { defineOp } from "./define.js";

export const replyOp = defineOp({
  name: "reply",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: (core, args, caller) => reply(core, args, caller.actor),
});
