/**
 * `concierge-order` (docs/protocol.md, "`concierge-order`"): standing orders, on the hub's connection (`by: user`)
 * and the concierge's (`by: concierge`): `add`, `rm` (the concierge only its own), `list`, and
 * `applied` (the concierge's: it did what one says).
 */
import Type from "typebox";
import { OrderId, OrderText, StandingOrder } from "../concierge.js";
import { WhenText } from "../schedules.js";
import { oneOf } from "../schema.js";

export const ORDER_ACTIONS = ["add", "rm", "list", "applied"] as const;

export const conciergeOrder = {
  args: Type.Object({
    action: oneOf(ORDER_ACTIONS),
    /** `add`: what to keep doing; `applied`: what it did this time (optional). */
    text: Type.Optional(OrderText),
    /** `add`: on a clock, in a schedule's vocabulary. */
    when: Type.Optional(WhenText),
    /** `rm`, `applied`: */
    id: Type.Optional(OrderId),
  }),
  result: Type.Object({
    /** Every order, oldest first. */
    orders: Type.Array(StandingOrder),
    order: Type.Optional(StandingOrder),
  }),
} as const;
