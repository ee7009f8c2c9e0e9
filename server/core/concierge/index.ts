/**
 * The concierge's room (docs/protocol.md, "The concierge"): its policy, answers, standing orders and
 * digests. What the other rooms use of it.
 */
export type { Concierge } from "./concierge.js";
