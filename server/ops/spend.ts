/** `spend` (protocol.md, "Budgets"): what jobs spent, a day at a time; logic in core/budgets/budgets.ts. */
import { defineOp } from "./define.js";

export const spendOp = defineOp({
  name: "spend",
  allow: ["hub"],
  acts: false,
  handler: (core, args) => core.budgets.spend(args.days ?? 7),
});
