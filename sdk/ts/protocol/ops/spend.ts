/** `spend` (protocol.md, "Budgets"): what was spent, a day at a time, and the budgets roost.json sets. */
import Type from "typebox";
import { BudgetsConfig, SpendDay } from "../budgets.js";

export const spend = {
  args: Type.Object({
    /** How many days back, today included (default 7). */
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })),
  }),
  result: Type.Object({
    /** Today, the daemon machine's local date. */
    today: Type.String(),
    /** Newest first; a day with nothing spent is left out. */
    days: Type.Array(SpendDay),
    limits: BudgetsConfig,
  }),
} as const;
