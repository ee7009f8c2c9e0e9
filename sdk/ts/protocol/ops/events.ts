/** `events` (protocol.md, "The events feed"): what happened across the jobs, by cursor. */
import Type from "typebox";
import { FeedEntry, JobId, LIMITS } from "../schema.js";

export const events = {
  args: Type.Object({
    after: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.feedKept })),
    id: Type.Optional(JobId),
    /** The entries about that job or done by it (`id` or `whoId`): its messages in and out. */
    involving: Type.Optional(JobId),
  }),
  result: Type.Object({ events: Type.Array(FeedEntry), cursor: Type.Integer() }),
} as const;
