/** A job's live terminal: watch it (`attach`), type into it, resize it. */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import type { Core } from "../core/core.js";
import type { Viewer } from "../core/viewers.js";
import { type Caller, defineOp } from "./define.js";

function running(core: Core, id: string) {
  const job = core.registry.get(id);
  if (job.rec.life !== "running")
    throw new RoostError("bad_request", `${id} is not running (${job.rec.life})`);
  return job;
}

/** Each caller's viewers, one per job, let go when the caller goes away. */
const attached = new WeakMap<Caller, Map<string, Viewer>>();

function viewersOf(core: Core, caller: Caller): Map<string, Viewer> {
  let mine = attached.get(caller);
  if (mine) return mine;
  const made = new Map<string, Viewer>();
  caller.onClose!(() => {
    for (const [id, viewer] of made) core.viewers.detach(id, viewer);
  });
  attached.set(caller, made);
  mine = made;
  return mine;
}

function detach(core: Core, caller: Caller, id: string): void {
  const mine = attached.get(caller);
  const viewer = mine?.get(id);
  if (!viewer) return;
  mine!.delete(id);
  core.viewers.detach(id, viewer);
}

export const terminalOps = [
  defineOp({
    name: "attach",
    allow: ["hub"],
    acts: false,
    stream: true,
    handler: (core, args, caller) => {
      const job = running(core, args.id);
      const mine = viewersOf(core, caller);
      detach(core, caller, args.id); // attaching again: a fresh screen, one stream
      const push = caller.push!;
      const viewer: Viewer = { push: (event) => push(event) };
      mine.set(args.id, viewer);
      return core.viewers.attach(job, viewer);
    },
  }),
  defineOp({
    name: "detach",
    allow: ["hub"],
    acts: false,
    stream: true,
    handler: (core, args, caller) => {
      detach(core, caller, args.id);
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
