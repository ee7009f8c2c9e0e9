/** `reply`: the user's answer to a job (agent-protocol.md, "Replies"); `pending`: those not yet taken. */
import { reply } from "../core/replies.js";
import { defineOp } from "./define.js";

export const replyOps = [
  defineOp({
    name: "reply",
    allow: ["hub"],
    acts: true,
    handler: (core, args, c) => reply(core, args, c.actor),
  }),
  defineOp({
    name: "pending",
    allow: ["hub"],
    acts: false,
    handler: (core, args) => ({
      replies: core.store
        .pendingReplies(core.registry.get(args.id).rec.id)
        .map(({ seq, text, mode, kind, at }) => ({ seq, text, mode, kind, at })),
    }),
  }),
];
