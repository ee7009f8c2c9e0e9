/**
 * `concierge-order` (protocol.md, "The concierge"): standing orders, on the hub's connection (the
 * user's) and the concierge's (its own); logic in core/concierge/concierge-orders.ts. `list` only looks.
 */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { conciergeOf } from "../core/concierge/concierge-answers.js";
import { actorOf } from "../core/peers/peers.js";
import { defineOp } from "./define.js";

export const conciergeOrderOp = defineOp({
  name: "concierge-order",
  allow: ["hub", "concierge"],
  acts: (args) => args.action !== "list",
  looks: 'concierge-order {action: "list"}',
  handler: (core, args, caller) => {
    const orders = core.concierge.orders;
    // runOp let a session's connection through only when it is the concierge's.
    const job = caller.conn?.session ? conciergeOf(core, caller.conn) : null;
    const by = job ? ("concierge" as const) : ("user" as const);
    const actor = job ? actorOf(core, job) : caller.actor;
    const id = args.id === undefined ? undefined : Number(args.id);
    const needId = (): number => {
      if (id === undefined) throw new RoostError("bad_request", `${args.action} needs the order's id`);
      return id;
    };
    switch (args.action) {
      case "list":
        return { orders: orders.list() };
      case "add": {
        if (args.text === undefined) throw new RoostError("bad_request", "add needs the order's text");
        const order = orders.add(args.text, args.when, by, actor);
        return { orders: orders.list(), order };
      }
      case "rm": {
        const order = orders.remove(needId(), by, actor);
        return { orders: orders.list(), order };
      }
      case "applied": {
        if (!job)
          throw new RoostError(
            "unsupported",
            "applied is the concierge's: it says it did what an order says",
          );
        const order = orders.applied(needId(), args.text, actor);
        return { orders: orders.list(), order };
      }
    }
  },
});
