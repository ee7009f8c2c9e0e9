/**
 * Every op's args and result (protocol.md, "The agent's ops" and "The hub's ops"), each op in a
 * file of its own named as it is: `ops/<op>.ts` (design.md, "Where an op lives"). The op table
 * in server/ops pairs each with its handler; HTTP routes and OpenAPI come from here. An op whose
 * name has a hyphen (`schedule-add`) is exported in camelCase (`scheduleAdd`).
 */
import type { Static } from "typebox";
import { ack } from "./ops/ack.js";
import { attach } from "./ops/attach.js";
import { budget } from "./ops/budget.js";
import { changes } from "./ops/changes.js";
import { concierge } from "./ops/concierge.js";
import { conciergeAct } from "./ops/concierge-act.js";
import { conciergeAsk } from "./ops/concierge-ask.js";
import { conciergeOrder } from "./ops/concierge-order.js";
import { conciergePolicy } from "./ops/concierge-policy.js";
import { conciergeReply } from "./ops/concierge-reply.js";
import { conciergeSay } from "./ops/concierge-say.js";
import { conciergeSuggest } from "./ops/concierge-suggest.js";
import { conversation } from "./ops/conversation.js";
import { conversationAppend } from "./ops/conversation-append.js";
import { detach } from "./ops/detach.js";
import { dispatch } from "./ops/dispatch.js";
import { events } from "./ops/events.js";
import { handback } from "./ops/handback.js";
import { hello } from "./ops/hello.js";
import { hook } from "./ops/hook.js";
import { input } from "./ops/input.js";
import { list } from "./ops/list.js";
import { merge } from "./ops/merge.js";
import { notifyTest } from "./ops/notify-test.js";
import { peer_register } from "./ops/peer_register.js";
import { peers } from "./ops/peers.js";
import { pending } from "./ops/pending.js";
import { pin } from "./ops/pin.js";
import { profiles } from "./ops/profiles.js";
import { queue } from "./ops/queue.js";
import { queueAdd } from "./ops/queue-add.js";
import { queueCancel } from "./ops/queue-cancel.js";
import { remotesReload } from "./ops/remotes-reload.js";
import { rename } from "./ops/rename.js";
import { reorder } from "./ops/reorder.js";
import { reply } from "./ops/reply.js";
import { report } from "./ops/report.js";
import { resize } from "./ops/resize.js";
import { respawn } from "./ops/respawn.js";
import { rm } from "./ops/rm.js";
import { scheduleAdd } from "./ops/schedule-add.js";
import { schedulePause } from "./ops/schedule-pause.js";
import { scheduleRm } from "./ops/schedule-rm.js";
import { scheduleRun } from "./ops/schedule-run.js";
import { scheduleWhen } from "./ops/schedule-when.js";
import { schedules } from "./ops/schedules.js";
import { send } from "./ops/send.js";
import { shutdown } from "./ops/shutdown.js";
import { spawn } from "./ops/spawn.js";
import { speak_for } from "./ops/speak_for.js";
import { spend } from "./ops/spend.js";
import { stop } from "./ops/stop.js";
import { subscribe } from "./ops/subscribe.js";
import { task } from "./ops/task.js";
import { token } from "./ops/token.js";
import { watch } from "./ops/watch.js";
import { whoami } from "./ops/whoami.js";

export const OPS = {
  // -- the agent's ops, on its job's connection --
  hello,
  report,
  ack,
  hook,
  // -- a job's conversation: its agent adds to it, the hub reads it --
  "conversation-append": conversationAppend,
  conversation,
  // -- the peer ops, on a session's own connection (docs/protocol.md) --
  peers,
  send,
  spawn,
  handback,
  watch,
  peer_register,
  speak_for,
  // -- the task board: the hub's and every session's --
  task,
  // -- the concierge: the hub's ops, its own, and the standing orders (both) --
  concierge,
  "concierge-ask": conciergeAsk,
  "concierge-say": conciergeSay,
  "concierge-suggest": conciergeSuggest,
  "concierge-policy": conciergePolicy,
  "concierge-reply": conciergeReply,
  "concierge-act": conciergeAct,
  "concierge-order": conciergeOrder,
  // -- the hub's ops --
  list,
  dispatch,
  reply,
  stop,
  rm,
  respawn,
  pin,
  rename,
  reorder,
  // -- a job's worktree (docs/worktrees.md) --
  changes,
  merge,
  subscribe,
  events,
  shutdown,
  pending,
  profiles,
  whoami,
  // -- HTTP tokens (http.md), and roost.json's remotes (fleet.md): on the unix socket only, the owner's --
  token,
  "remotes-reload": remotesReload,
  // -- roost.json's notify hooks (notify.md): on the unix socket only, the owner's --
  "notify-test": notifyTest,
  // -- a job's live terminal (`roost attach`; the hub's terminal view) --
  attach,
  detach,
  input,
  resize,
  // -- schedules (docs/protocol.md, "Schedules") --
  schedules,
  "schedule-add": scheduleAdd,
  "schedule-rm": scheduleRm,
  "schedule-pause": schedulePause,
  "schedule-run": scheduleRun,
  "schedule-when": scheduleWhen,
  // -- the merge queue (docs/worktrees.md, "The merge queue") --
  "queue-add": queueAdd,
  queue,
  "queue-cancel": queueCancel,
  // -- budgets (docs/budgets.md) --
  budget,
  spend,
} as const;

export type OpName = keyof typeof OPS;
/**
 * A session's own ops (the agent's and the peer ops): refused on a hub's connection. Every other op
 * is a hub op, refused on a session's connection but for SHARED_OPS.
 */
export const SESSION_OPS: readonly OpName[] = [
  "hello",
  "report",
  "ack",
  "conversation-append",
  "peers",
  "send",
  "spawn",
  "handback",
  "watch",
  "peer_register",
  "speak_for",
  "hook",
  // the concierge's own, on its job's connection only
  "concierge-say",
  "concierge-suggest",
  "concierge-policy",
  "concierge-reply",
  "concierge-act",
];
/** Hub ops a session may use too: the task board is everyone's (docs/protocol.md, "The task board"). */
export const SHARED_OPS: readonly OpName[] = ["task"];
export type OpArgs<K extends OpName> = Static<(typeof OPS)[K]["args"]>;
export type OpResult<K extends OpName> = Static<(typeof OPS)[K]["result"]>;
export { HOOK_AGENTS, HOOK_EVENTS, type HookAgent } from "./ops/hook.js";
export {
  BoardTask,
  TASK_ACTIONS,
  TASK_SENT,
  TASK_STATES,
  TASK_WHYS,
  type TaskAction,
  TaskId,
} from "./ops/task.js";
