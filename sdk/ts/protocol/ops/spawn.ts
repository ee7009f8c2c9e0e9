/** `spawn` (protocol.md, "The peer ops"): `dispatch` for a session; the child's `parent` is the asker. */
import Type from "typebox";
import { LIMITS } from "../schema.js";
import { dispatch } from "./dispatch.js";

export const spawn = {
  args: Type.Object({
    ...dispatch.args.properties,
    task: Type.String({ minLength: 1, maxLength: LIMITS.text }),
  }),
  result: Type.Object({ job: dispatch.result.properties.job }),
} as const;
