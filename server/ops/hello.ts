/** `hello` (protocol.md, "The agent's ops"): makes the connection a session; logic in core/jobs/agents.ts. */
import { hello } from "../core/jobs/agents.js";
import { defineOp, socketConnection } from "./define.js";

export const helloOp = defineOp({
  name: "hello",
  allow: ["hub", "session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => hello(core, socketConnection(caller), args),
});
