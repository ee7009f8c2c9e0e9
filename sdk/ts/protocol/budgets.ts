/**
 * Budgets (docs/budgets.md): what a job, a profile and the day may spend, what they spent, and a
 * row's word on it. Its own file (schema.ts's Row and the ops build on it; it builds on nothing).
 */
import Type, { type Static, type TLiteral, type TUnion } from "typebox";

const oneOf = <const T extends readonly string[]>(values: T) =>
  Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<[TLiteral<T[number]>]>;

/** What may be spent: cost in US dollars (as the agents report it), tokens, minutes of running. All > 0. */
export const Limits = Type.Object(
  {
    cost: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e9 })),
    tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1e15 })),
    minutes: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e9 })),
  },
  { additionalProperties: false },
);
export type Limits = Static<typeof Limits>;
/** The dimensions a budget counts. */
export const BUDGET_DIMENSIONS = ["cost", "tokens", "minutes"] as const;
export type BudgetDimension = (typeof BUDGET_DIMENSIONS)[number];

/** What was spent: cost (USD), tokens, minutes of running. */
export const Spent = Type.Object({ cost: Type.Number(), tokens: Type.Number(), minutes: Type.Number() });
export type Spent = Static<typeof Spent>;

/** The scopes a budget applies in: the job's own, its profile's for the day, the day's for every job. */
export const BUDGET_SCOPES = ["job", "profile", "daily"] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
/** `near`: 80% or more of a budget spent; `spent`: all of one. */
export const BUDGET_STATES = ["ok", "near", "spent"] as const;
export type BudgetState = (typeof BUDGET_STATES)[number];

/**
 * A row's `budget`: what the job spent, and the budget that applies to it nearest to its end
 * (`scope`, its `limit` and what was spent of it, `used`); `scope` null where none applies.
 */
export const RowBudget = Type.Object({
  spent: Spent,
  state: oneOf(BUDGET_STATES),
  scope: Type.Union([oneOf(BUDGET_SCOPES), Type.Null()]),
  limit: Type.Union([Limits, Type.Null()]),
  used: Type.Union([Spent, Type.Null()]),
  /** The job's own budget (dispatch's `budget`, the `budget` op, else roost.json's `budgets.job`). */
  own: Type.Union([Limits, Type.Null()]),
  /** After a respawn of a job stopped for its budget: the scopes that no longer stop it (until `until`, a day). */
  exempt: Type.Union([
    Type.Object({ scopes: Type.Array(oneOf(BUDGET_SCOPES)), until: Type.String() }),
    Type.Null(),
  ]),
});
export type RowBudget = Static<typeof RowBudget>;

/** One day's spend (the daemon machine's local date, `YYYY-MM-DD`): in all, by profile, by repository. */
export const SpendDay = Type.Object({
  day: Type.String(),
  total: Spent,
  profiles: Type.Record(Type.String(), Spent),
  /** By the jobs' repository (a worktree's, else the git top directory of its cwd); `""` for none. */
  repositories: Type.Record(Type.String(), Spent),
});
export type SpendDay = Static<typeof SpendDay>;

/** roost.json's `budgets`: each job's default, the day's, each profile's for the day. */
export const BudgetsConfig = Type.Object(
  {
    job: Type.Optional(Limits),
    daily: Type.Optional(Limits),
    profiles: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Limits)),
  },
  { additionalProperties: false },
);
export type BudgetsConfig = Static<typeof BudgetsConfig>;
