/** `peers` (protocol.md, "The peer ops"): on a session's own connection; logic in core/peers/peers.ts. */
import { peers } from "../core/peers/peers.js";
import { defineOp, socketConnection } from "./define.js";

export const peersOp = defineOp({
  name: "peers",
  allow: ["session"],
  acts: false,
  socketOnly: true,
  handler: (core, _args, caller) => peers(core, socketConnection(caller)),
});
