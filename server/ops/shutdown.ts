/** `shutdown` (protocol.md, "The hub's ops"): the daemon ends (core.shutdown, wired in server/main.ts). */
import { defineOp } from "./define.js";

export const shutdownOp = defineOp({
  name: "shutdown",
  allow: ["hub"],
  acts: true,
  handler: (core) => {
    setImmediate(core.shutdown); // after this answer has gone out
    return {};
  },
});
