/** `conversation-append` (protocol.md, "The conversation"): logic in core/jobs/conversation-log.ts. */
import { appendEntries } from "../core/jobs/conversation-log.js";
import { defineOp, socketConnection } from "./define.js";

export const conversationAppendOp = defineOp({
  name: "conversation-append",
  allow: ["hub", "session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => appendEntries(core, socketConnection(caller), args),
});
