/**
 * `events` (protocol.md, "The events feed"): the hub's, and the concierge's (the feed carries
 * every tree's messages, so another session's connection is refused); logic in core/feed.ts.
 */
import { defineOp } from "./define.js";

export const eventsOp = defineOp({
  name: "events",
  allow: ["hub", "concierge"],
  acts: false,
  handler: (core, args) => core.feed.list(args),
});
