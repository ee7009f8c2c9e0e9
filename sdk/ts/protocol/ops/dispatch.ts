/** `dispatch` (protocol.md, "The hub's ops"): a profile, a task, a new job. */
import Type from "typebox";
import { JobName, LIMITS, RequestId, Row } from "../schema.js";

export const dispatch = {
  args: Type.Object({
    profile: Type.String({ minLength: 1, maxLength: 100 }),
    task: Type.Optional(Type.String({ maxLength: LIMITS.text })),
    name: Type.Optional(JobName),
    cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    requestId: Type.Optional(RequestId),
  }),
  result: Type.Object({ job: Row, duplicate: Type.Optional(Type.Boolean()) }),
} as const;
