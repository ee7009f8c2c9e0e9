/** `watch` (protocol.md, "The peer ops"): a `notice` when that session is next idle, or has ended. */
import Type from "typebox";
import { JobId, oneOf } from "../schema.js";

export const WATCH_WHEN = ["idle", "ended"] as const;

export const watch = {
  args: Type.Object({
    /** An id, or a name exactly one live session has. */
    id: Type.String({ minLength: 1, maxLength: 200 }),
    when: oneOf(WATCH_WHEN),
  }),
  result: Type.Object({ id: JobId, name: Type.String(), when: oneOf(WATCH_WHEN), fired: Type.Boolean() }),
} as const;
