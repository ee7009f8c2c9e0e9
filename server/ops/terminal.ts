/** A job's live terminal: watch it (`attach`), type into it, resize it. */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import type { Core } from "../core/core.js";
import type { Watcher } from "../core/viewers.js";
import { type Caller, defineOp } from "./define.js";

function running(core: Core, id: string) {
  const job = core.registry.get(id);
  if (job.rec.life !== "running")
    throw new RoostError("bad_request", `${id} is not running (${job.rec.life})`);
  return job;
}

/** A stream op's caller: runOp has checked that it has `push` and `onClose`. */
const watcherOf = (caller: Caller): Watcher => caller as Caller & Watcher;

export const terminalOps = [
  defineOp({
    name: "attach",
    allow: ["hub"],
    acts: false,
    stream: true,
    handler: (core, args, caller) => {
      return core.viewers.attachFor(watcherOf(caller), running(core, args.id));
    },
  }),
  defineOp({
    name: "detach",
    allow: ["hub"],
    acts: false,
    stream: true,
    handler: (core, args, caller) => {
      core.viewers.detachFor(watcherOf(caller), args.id);
      return {};
    },
  }),
  defineOp({
    name: "input",
    allow: ["hub"],
    acts: true,
    handler: async (core, args) => {
      await (await core.terminals()).write(running(core, args.id).rec.id, args.data);
      return {};
    },
  }),
  defineOp({
    name: "resize",
    allow: ["hub"],
    acts: true,
    handler: async (core, args) => {
      await (await core.terminals()).resize(running(core, args.id).rec.id, args.cols, args.rows);
      return {};
    },
  }),
];
