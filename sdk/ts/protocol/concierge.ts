/**
 * The concierge (docs/protocol.md, "The concierge"): the hub's own agent,
 * its policy, its answers in the user's place and its standing orders. The shapes the `concierge*`
 * ops answer with, and the `concierge` push.
 */
import Type, { type Static, type TSchema } from "typebox";
import { JobId, LIMITS, oneOf } from "./schema.js";

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** `never`: it only suggests; `routine`: it answers what it judges routine; `always`: it answers any question. */
export const ANSWER_POLICIES = ["never", "routine", "always"] as const;
/** What the concierge tells the user: news, something it needs of the user, its answer to a `concierge-ask`. */
export const SAY_KINDS = ["info", "need", "answer"] as const;
/** Who keeps a standing order: the user (the hub's connection), or the concierge itself. */
export const ORDER_BY = ["user", "concierge"] as const;
/** The `concierge` feed entries' `why`: what the concierge said or did, or what became of an order. */
export const CONCIERGE_WHYS = [
  ...SAY_KINDS,
  "suggest",
  "undo",
  "order",
  "order-kept",
  "order-dropped",
  "policy",
] as const;

export const ConciergePolicy = Type.Object({
  answer: oneOf(ANSWER_POLICIES),
  /** May stop, respawn and dispatch (`concierge-act`). */
  act: Type.Boolean(),
});
export type ConciergePolicy = Static<typeof ConciergePolicy>;

/** The last answer the concierge gave in the user's place (`concierge-reply`), for `undo`. */
export const ConciergeAnswer = Type.Object({
  /** The session it answered, its name then, and the reply's seq. */
  id: JobId,
  name: Type.String(),
  seq: Type.Integer(),
  /** The question it answered (null: the row had none), the answer and why the concierge gave it. */
  question: nullable(Type.String()),
  text: Type.String(),
  why: Type.String(),
  at: Type.String(),
  /** Withdrawn by `concierge {action: "undo"}`: the session was told to disregard it. */
  undone: Type.Boolean(),
});
export type ConciergeAnswer = Static<typeof ConciergeAnswer>;

/** What the concierge said it needs of the user (`concierge-say` of kind `need`), until the user asks it something. */
/** What the concierge says to a waiting session (`concierge-suggest`, `concierge-reply`): the answer, and why. */
export const AnswerArgs = Type.Object({
  id: JobId,
  text: Type.String({ minLength: 1, maxLength: LIMITS.text }),
  why: Type.Optional(Type.String({ maxLength: LIMITS.summary })),
  /** The row's `asked` as the concierge read it (its digest): refused `conflict` if it has moved. */
  ifAsked: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const ConciergeNeed = Type.Object({ text: Type.String(), at: Type.String() });

export const ConciergeStatus = Type.Object({
  /** Its job runs. */
  on: Type.Boolean(),
  /** Its job (running or not); null when there has been none. */
  id: nullable(JobId),
  /** Its row's one word (row-state.ts: `working`, `your turn`, `stopped`, …); null without a job. */
  state: nullable(Type.String()),
  policy: ConciergePolicy,
  answered: nullable(ConciergeAnswer),
  /** How many standing orders are kept. */
  orders: Type.Integer(),
  need: nullable(ConciergeNeed),
});
export type ConciergeStatus = Static<typeof ConciergeStatus>;

/** An order's id: a positive integer, or a string of digits (a CLI's argument). */
export const OrderId = Type.Union([
  Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  Type.String({ pattern: "^[0-9]{1,15}$" }),
]);

/** A standing order: what the concierge is to keep doing, on a clock or in every digest. */
export const StandingOrder = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  text: Type.String(),
  /** A schedule's vocabulary (`every 30m`, `daily 18:00`, …); null: kept in mind, on no clock. */
  when: nullable(Type.String()),
  /** `when` in words ("every 30 minutes"); null without one. */
  words: nullable(Type.String()),
  by: oneOf(ORDER_BY),
  at: Type.String(),
  /** When the concierge last said it applied it (`applied`), and how many times. */
  lastAt: nullable(Type.String()),
  count: Type.Integer(),
  /** When it is next due (a `Due now` digest); null without a `when`. */
  nextAt: nullable(Type.String()),
});
export type StandingOrder = Static<typeof StandingOrder>;

export const OrderText = Type.String({ minLength: 1, maxLength: LIMITS.orderText });

/** Pushed to subscribers whenever the status changes. */
export const ConciergeEvent = Type.Object({ event: Type.Literal("concierge"), status: ConciergeStatus });
export type ConciergeEvent = Static<typeof ConciergeEvent>;
