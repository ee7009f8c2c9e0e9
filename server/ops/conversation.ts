/** `conversation` (protocol.md, "The conversation"): a job's conversation; logic in core/jobs/conversation-log.ts. */
import { readEntries } from "../core/jobs/conversation-log.js";
import { defineOp } from "./define.js";

export const conversationOp = defineOp({
  name: "conversation",
  allow: ["hub"],
  acts: false,
  relayed: true,
  handler: (core, args) => readEntries(core, args),
});
