/**
 * `concierge` (docs/protocol.md, "The concierge"): the hub's switch for
 * its own agent (`on`, `off`), how it stands (`status`), its policy (`answer`, `act`), and `undo` of
 * the last answer it gave in the user's place. Every action answers the status.
 */
import Type from "typebox";
import { ANSWER_POLICIES, ConciergeAnswer, ConciergeStatus } from "../concierge.js";
import { oneOf } from "../schema.js";

export const CONCIERGE_ACTIONS = ["on", "off", "status", "answer", "act", "undo"] as const;

/** Which agent is the concierge: a profile's (any protocol agent), its first task, where it runs. */
export const ConciergeLaunch = Type.Object({
  profile: Type.String({ minLength: 1, maxLength: 100 }),
  task: Type.Optional(Type.String({ maxLength: 65536 })),
  cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
});

export const concierge = {
  args: Type.Object({
    action: oneOf(CONCIERGE_ACTIONS),
    /** `on`: the agent to run (default: roost.json's `concierge.profile`, else pi with roost's concierge). */
    launch: Type.Optional(ConciergeLaunch),
    /** `answer`: */
    answer: Type.Optional(oneOf(ANSWER_POLICIES)),
    /** `act`: */
    act: Type.Optional(Type.Boolean()),
  }),
  result: Type.Object({
    ...ConciergeStatus.properties,
    /** `undo`: the answer withdrawn. */
    undone: Type.Optional(ConciergeAnswer),
  }),
} as const;
