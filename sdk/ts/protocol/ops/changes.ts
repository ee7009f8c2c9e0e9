/** `changes` (protocol.md, "The hub's ops"): a job's diff against its base, bounded. */
import Type from "typebox";
import { JobId } from "../schema.js";
import { Changes } from "../worktree.js";

export const changes = {
  args: Type.Object({
    id: JobId,
    /** The files and counts alone: no unified diff. */
    stat: Type.Optional(Type.Boolean()),
  }),
  result: Changes,
} as const;
