/**
 * `subscribe` (protocol.md, "The hub's ops"): the caller takes the pushes (core/pushes.ts) until
 * it goes away, then gets the rows; a change after them is pushed on a later turn.
 */
import { defineOp, streamOf } from "./define.js";

export const subscribeOp = defineOp({
  name: "subscribe",
  allow: ["hub"],
  acts: false,
  stream: true,
  handler: (core, _args, caller) => {
    const { push, onClose } = streamOf(caller);
    onClose(core.pushes.subscribe(push));
    const rows = [...core.registry.rows(), ...core.remotes.rows()];
    return core.remotes.any ? { rows, remotes: core.remotes.status() } : { rows };
  },
});
