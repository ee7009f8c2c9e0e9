/** `spawn` (protocol.md, "The peer ops"): on a session's own connection; logic in core/peers/peers.ts. */
import { spawn } from "../core/peers/peers.js";
import { defineOp, socketConnection } from "./define.js";

export const spawnOp = defineOp({
  name: "spawn",
  allow: ["session"],
  acts: true,
  socketOnly: true,
  handler: (core, args, caller) => spawn(core, socketConnection(caller), args),
});
