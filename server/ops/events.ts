/** `events` (protocol.md, "The events feed"): logic in core/feed.ts (`Feed.list`). */
import { defineOp } from "./define.js";

export const eventsOp = defineOp({
  name: "events",
  allow: ["hub"],
  acts: false,
  handler: (core, args) => core.feed.list(args),
});
