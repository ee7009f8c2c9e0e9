/**
 * `concierge` (protocol.md, "The concierge"): the hub's switch for its own agent, its status, its
 * policy and `undo`; logic in core/concierge/concierge.ts and core/concierge/concierge-answers.ts. `status` only looks.
 */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { undo } from "../core/concierge/concierge-answers.js";
import { defineOp } from "./define.js";

export const conciergeOp = defineOp({
  name: "concierge",
  allow: ["hub"],
  acts: (args) => args.action !== "status",
  looks: 'concierge {action: "status"}',
  handler: async (core, args, caller) => {
    const concierge = core.concierge;
    switch (args.action) {
      case "status":
        return concierge.status();
      case "on":
        return concierge.on(core, args.launch, caller.actor);
      case "off":
        return concierge.off(core, caller.actor);
      case "answer":
        if (args.answer === undefined)
          throw new RoostError("bad_request", "answer needs answer: never, routine or always");
        return concierge.setPolicy({ answer: args.answer }, caller.actor);
      case "act":
        if (args.act === undefined) throw new RoostError("bad_request", "act needs act: true or false");
        return concierge.setPolicy({ act: args.act }, caller.actor);
      case "undo": {
        const undone = await undo(core, caller.actor);
        return { ...concierge.status(), undone };
      }
    }
  },
});
