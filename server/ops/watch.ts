/** `watch` (protocol.md, "The peer ops"): on a session's own connection; logic in core/peers/peers.ts. */
import { watch } from "../core/peers/peers.js";
import { defineOp, socketConnection } from "./define.js";

export const watchOp = defineOp({
  name: "watch",
  allow: ["session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => watch(core, socketConnection(caller), args),
});
