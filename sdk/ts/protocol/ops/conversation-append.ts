/**
 * `conversation-append` (protocol.md, "The conversation"): an agent adds to its job's conversation,
 * on a connection that speaks for the job (its agent's, or a tool's after `speak_for`).
 */
import Type from "typebox";
import { ConversationAppendArgs } from "../conversation.js";

export const conversationAppend = {
  args: ConversationAppendArgs,
  result: Type.Object({
    /** The first and last `n` the entries were given (a resend's: the first sending's). */
    first: Type.Integer(),
    last: Type.Integer(),
    duplicate: Type.Optional(Type.Literal(true)),
  }),
} as const;
