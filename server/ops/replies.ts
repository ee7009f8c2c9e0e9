/** `reply`: the user's answer to a job (agent-protocol.md, "Replies"). */
import { reply } from "../core/replies.js";
import { defineOp } from "./define.js";

export const replyOps = [
  defineOp({
    name: "reply",
    allow: ["hub"],
    acts: true,
    handler: (core, args, c) => reply(core, args, c.actor),
  }),
];
