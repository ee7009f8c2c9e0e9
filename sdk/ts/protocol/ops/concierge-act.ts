/**
 * `concierge-act` (docs/protocol.md, "`concierge-act`"): on the concierge's connection, when the policy's `act`
 * allows: stop or respawn a session, or dispatch a new one.
 */
import Type from "typebox";
import { JobId, JobName, LIMITS, oneOf, Row } from "../schema.js";

export const CONCIERGE_ACTS = ["stop", "respawn", "dispatch"] as const;

export const conciergeAct = {
  args: Type.Object({
    what: oneOf(CONCIERGE_ACTS),
    /** `stop`, `respawn`: the session (an id, or a name one live session has). */
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** `dispatch`: what `dispatch` takes. */
    launch: Type.Optional(
      Type.Object({
        profile: Type.String({ minLength: 1, maxLength: 100 }),
        task: Type.Optional(Type.String({ maxLength: LIMITS.text })),
        name: Type.Optional(JobName),
        cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
      }),
    ),
  }),
  result: Type.Object({ job: Type.Optional(Row), id: Type.Optional(JobId) }),
} as const;
