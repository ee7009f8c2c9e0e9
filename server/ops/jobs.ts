/** The hub's ops on jobs (control-plane.md, "The hub's ops"). */

import { RoostError } from "../../sdk/ts/protocol/index.js";
import { dispatch } from "../core/dispatch.js";
import { remove, respawn, stop } from "../core/lifecycle.js";
import { checkName } from "../core/names.js";
import { defineOp } from "./define.js";

export const jobOps = [
  defineOp({
    name: "list",
    allow: ["hub"],
    acts: false,
    handler: (core, args) => ({
      rows: args.id === undefined ? core.registry.rows() : [core.registry.row(core.registry.get(args.id))],
    }),
  }),
  defineOp({
    name: "dispatch",
    allow: ["hub"],
    acts: true,
    handler: (core, args, c) => dispatch(core, args, c.actor),
  }),
  defineOp({
    name: "stop",
    allow: ["hub"],
    acts: true,
    handler: async (core, args, caller) => {
      await stop(core, core.registry.get(args.id), caller.actor);
      return {};
    },
  }),
  defineOp({
    name: "rm",
    allow: ["hub"],
    acts: true,
    handler: async (core, args, caller) => {
      await remove(core, core.registry.get(args.id), caller.actor);
      return {};
    },
  }),
  defineOp({
    name: "respawn",
    allow: ["hub"],
    acts: true,
    handler: async (core, args, caller) => ({
      job: await respawn(core, core.registry.get(args.id), caller.actor),
    }),
  }),
  defineOp({
    name: "pin",
    allow: ["hub"],
    acts: true,
    handler: (core, args) => {
      const job = core.registry.get(args.id);
      job.rec.pinned = args.pinned;
      core.registry.changed(job, true);
      return {};
    },
  }),
  defineOp({
    name: "rename",
    allow: ["hub"],
    acts: true,
    handler: (core, args, caller) => {
      const job = core.registry.get(args.id);
      job.rec.userName = checkName(args.name);
      core.registry.changed(job, true);
      core.feed.record(job.rec.id, "rename", `renamed ${job.rec.userName}`, caller.actor);
      return {};
    },
  }),
  defineOp({
    name: "reorder",
    allow: ["hub"],
    acts: true,
    handler: (core, args) => {
      // The named jobs go first, in the order given; the others keep theirs after them.
      if (new Set(args.ids).size !== args.ids.length)
        throw new RoostError("bad_request", "ids names a job twice");
      const named = args.ids.map((id) => core.registry.get(id));
      const others = core.registry.all().filter((j) => !args.ids.includes(j.rec.id));
      others.sort((a, b) => a.rec.order - b.rec.order);
      [...named, ...others].forEach((job, i) => {
        if (job.rec.order === i) return;
        job.rec.order = i;
        core.registry.changed(job, true);
      });
      return {};
    },
  }),
];
