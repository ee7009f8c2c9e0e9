/** `handback` (protocol.md, "The peer ops"): on a session's own connection; logic in core/peers/peers.ts. */
import { handback } from "../core/peers/peers.js";
import { defineOp, socketConnection } from "./define.js";

export const handbackOp = defineOp({
  name: "handback",
  allow: ["session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => handback(core, socketConnection(caller), args),
});
