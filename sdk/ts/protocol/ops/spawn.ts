/** `spawn` (protocol.md, "The peer ops"): `dispatch` for a session; the child's `parent` is the asker. */
import Type from "typebox";
import { LIMITS } from "../schema.js";
import { dispatch } from "./dispatch.js";

export const spawn = {
  args: Type.Object({
    ...dispatch.args.properties,
    task: Type.String({ minLength: 1, maxLength: LIMITS.text }),
  }),
  /** `duplicate`: a resend of a spawn that was taken (the same `requestId`): its job, not a second. */
  result: dispatch.result,
} as const;
