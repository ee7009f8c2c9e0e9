/** `peer_register` (protocol.md, "The peer ops"): a foreground pi becomes a session; logic in core/peers/foreground.ts. */
import { defineOp, socketConnection } from "./define.js";

export const peer_registerOp = defineOp({
  name: "peer_register",
  allow: ["hub", "session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => core.peers.foreground.register(core, socketConnection(caller), args),
});
