/** Following the daemon: `subscribe`, the `events` feed, and `shutdown`. */
import { defineOp } from "./define.js";

export const daemonOps = [
  defineOp({
    name: "subscribe",
    allow: ["hub"],
    acts: false,
    stream: true,
    handler: (core, _args, caller) => {
      caller.onClose!(core.pushes.subscribe(caller.push!));
      return { rows: core.registry.rows() };
    },
  }),
  defineOp({ name: "events", allow: ["hub"], acts: false, handler: (core, args) => core.feed.list(args) }),
  defineOp({
    name: "shutdown",
    allow: ["hub"],
    acts: true,
    handler: (core) => {
      setImmediate(core.shutdown); // after this answer has gone out
      return {};
    },
  }),
];
