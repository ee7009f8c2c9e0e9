/**
 * The peers' room (docs/protocol.md, "The peer ops"): the sessions' messages, handbacks and watches, their
 * items and rules, foreground pis. What the other rooms use of it.
 */
export type { Foreground } from "./foreground.js";
export { mustReadMessages, type NewItem, relationOf, sendItem } from "./peer-items.js";
export type { PeerRules } from "./peer-rules.js";
export { actorOf, sessionNamed, sessionOf } from "./peers.js";
export type { Watches } from "./watches.js";
