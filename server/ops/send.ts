/** `send` (protocol.md, "The peer ops"): on a session's own connection; logic in core/peers/peers.ts. */
import { send } from "../core/peers/peers.js";
import { defineOp, socketConnection } from "./define.js";

export const sendOp = defineOp({
  name: "send",
  allow: ["session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => send(core, socketConnection(caller), args),
});
