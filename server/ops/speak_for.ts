/** `speak_for` (protocol.md, "The peer ops"): a job's tools on a connection of their own; logic in core/jobs/agents.ts. */
import { speakFor } from "../core/jobs/agents.js";
import { defineOp, socketConnection } from "./define.js";

export const speak_forOp = defineOp({
  name: "speak_for",
  allow: ["hub", "session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => speakFor(core, socketConnection(caller), args),
});
