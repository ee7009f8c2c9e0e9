/**
 * `list` (protocol.md, "The hub's ops"): the rows in the user's order (core/jobs/registry.ts), then the
 * remotes' (server/fleet/remotes.ts); or one job's (a remote's is asked of it, by runOp).
 */
import { defineOp } from "./define.js";

export const listOp = defineOp({
  name: "list",
  allow: ["hub"],
  acts: false,
  relayed: true,
  handler: (core, args) => ({
    rows:
      args.id === undefined
        ? [...core.registry.rows(), ...core.remotes.rows()]
        : [core.registry.row(core.registry.get(args.id))],
  }),
});
