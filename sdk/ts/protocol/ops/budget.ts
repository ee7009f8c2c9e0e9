/** `budget` (protocol.md, "Budgets"): a job's own budget set; one stopped for its budget goes on if it is no longer spent. */
import Type from "typebox";
import { Limits } from "../budgets.js";
import { JobId, Row } from "../schema.js";

export const budget = {
  args: Type.Object({
    id: JobId,
    cost: Limits.properties.cost,
    tokens: Limits.properties.tokens,
    minutes: Limits.properties.minutes,
  }),
  result: Type.Object({
    job: Row,
    /** It was stopped for its budget and is started again (its budgets no longer spent). */
    continued: Type.Boolean(),
  }),
} as const;
