/**
 * `watch` (protocol.md, "The peer ops"): a `notice` when that session is next idle, or has ended;
 * or, with `children`, when the last of the asker's children is in (handed back, or ended).
 */
import Type from "typebox";
import { JobId, oneOf } from "../schema.js";

export const WATCH_WHEN = ["idle", "ended", "handback"] as const;

export const watch = {
  args: Type.Object({
    /** An id, or a name exactly one live session has (not with `children`). */
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** The asker's own children, all of them: `when` is `handback` or `ended`. */
    children: Type.Optional(Type.Boolean()),
    when: oneOf(WATCH_WHEN),
  }),
  result: Type.Object({
    /** The watched session; with `children`, the asker itself. */
    id: JobId,
    name: Type.String(),
    when: oneOf(WATCH_WHEN),
    fired: Type.Boolean(),
    /** With `children`: the children it waits on (none: it fired at once). */
    children: Type.Optional(Type.Array(JobId)),
  }),
} as const;
