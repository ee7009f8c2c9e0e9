/** `budget` (protocol.md, "Budgets"): a job's own budget set; logic in core/budgets/budgets.ts. */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { defineOp } from "./define.js";

export const budgetOp = defineOp({
  name: "budget",
  allow: ["hub"],
  acts: true,
  relayed: true,
  handler: async (core, { id, ...limit }) => {
    const job = core.registry.get(id);
    if (limit.cost === undefined && limit.tokens === undefined && limit.minutes === undefined)
      throw new RoostError(
        "bad_request",
        "budget: give cost, tokens or minutes (each > 0): the job's own budget",
      );
    const continued = await core.budgets.setOwn(job, limit);
    return { job: core.registry.row(job), continued };
  },
});
