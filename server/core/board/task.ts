/**
 * `task` (docs/protocol.md, "The task board"): who acts
 * (the hub's user, the concierge, a session after its report), the args each action needs, and
 * `assign`'s hand-over. The rules are board.ts's; the board as the daemon keeps it task-board.ts's.
 */
import {
  failedResult,
  LIMITS,
  type OpArgs,
  type OpResult,
  RoostError,
} from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { AgentConnection } from "../jobs/index.js";
import { mustReadMessages, sessionNamed, sessionOf } from "../peers/index.js";
import { type BoardAction, type BoardActor, mayHandOut, type Step } from "./board.js";
import { sendAssignment, tellHolder } from "./task-items.js";

const BEFORE_REPORT =
  "task on an agent's connection is its session's: report first (a foreground pi: peer_register), or use a connection of your own as the hub";

/** Who acts: the hub's user on a hub connection (and over HTTP); else the session, or the concierge by its role. */
export function boardActor(core: Core, conn: AgentConnection | null): BoardActor {
  if (!conn?.session) return { kind: "user" };
  const job = sessionOf(core, conn, BEFORE_REPORT);
  const me = { id: job.rec.id, name: core.registry.nameOf(job) };
  return job.rec.role === "concierge" ? { kind: "concierge", ...me } : { kind: "session", ...me };
}

type Args = OpArgs<"task">;

/** An id as the wire allows it, a positive integer or its digits, as a number. */
const idOf = (id: number | string) => (typeof id === "number" ? id : Number(id));

function needed<K extends keyof Args>(args: Args, key: K): NonNullable<Args[K]> {
  const value = args[key];
  if (value === undefined || value === null)
    throw new RoostError("bad_request", `task ${args.action} needs ${String(key)}`);
  return value as NonNullable<Args[K]>;
}

export async function task(core: Core, conn: AgentConnection | null, args: Args): Promise<OpResult<"task">> {
  const actor = boardActor(core, conn);
  const board = core.board;
  if (args.action === "list") return { tasks: await board.list() };
  if (args.action === "assign") return assign(core, actor, idOf(needed(args, "id")), needed(args, "to"));
  const action = actionOf(args);
  const request = requestOf(actor, args, action);
  if (request) {
    const first = core.store.requestAnswer(request.session, request.id, request.op) as {
      task: number;
    } | null;
    if (first) {
      const tasks = await board.list();
      const t = tasks.find((x) => x.id === first.task);
      return { tasks, ...(t ? { task: t } : {}), duplicate: true };
    }
  }
  const remember = request
    ? (step: Step) =>
        step.task &&
        core.store.rememberRequest(request.session, request.id, request.op, { task: step.task.id })
    : undefined;
  const done = await board.apply(actor, action, remember);
  if (actor.kind === "user" || actor.kind === "concierge")
    for (const tell of done.tells) await tellHolder(core, actor, tell);
  return answer(core, done);
}

/**
 * A request id the answer is kept by: a session's (or the concierge's) `add`, and `claim` with
 * `next`, whose resend would otherwise make a second task, or claim a second one. The user's are
 * kept by the hub's own (dispatch's and reply's are; a task's not).
 */
function requestOf(actor: BoardActor, args: Args, action: BoardAction) {
  if (!args.requestId || (actor.kind !== "session" && actor.kind !== "concierge")) return null;
  if (action.action !== "add" && action.action !== "next") return null;
  return { session: actor.id, id: args.requestId, op: `task ${action.action}` };
}

function actionOf(args: Args): BoardAction {
  switch (args.action) {
    case "add":
      return {
        action: "add",
        title: needed(args, "title"),
        detail: args.detail ?? null,
        after: (args.after ?? []).map(idOf),
      };
    case "done":
      return {
        action: "done",
        id: idOf(needed(args, "id")),
        result: args.failed ? failedResult(args.result ?? null, LIMITS.taskResult) : (args.result ?? null),
      };
    case "claim":
      if (args.next) {
        if (args.id !== undefined)
          throw new RoostError("bad_request", "task claim: give id, or next: true, not both");
        return { action: "next" };
      }
      return { action: "claim", id: idOf(needed(args, "id")) };
    case "release":
    case "drop":
      return { action: args.action, id: idOf(needed(args, "id")) };
    default:
      throw new RoostError("bad_request", `task: no action ${JSON.stringify(args.action)}`);
  }
}

type Sent = Pick<OpResult<"task">, "sent" | "reason">;

/** The board, with each task's `view` (the word every face shows: blocked, failed …), and the step's task. */
function answer(core: Core, done: Step, sent: Sent = {}): OpResult<"task"> {
  const task = done.task && core.board.viewedTask(done.task);
  return {
    tasks: core.board.viewed(),
    ...(task ? { task } : {}),
    ...sent,
    ...(done.duplicate ? { duplicate: true } : {}),
  };
}

/**
 * Why a hand-over's message did not reach its session: it was refused there (`full`: 20 items
 * waiting), or the session went meanwhile (`not_found`). The action is answered, `sent: false`
 * saying so, not failed: the board's side (the task stays unassigned) is what it says.
 */
const NOT_REACHED: readonly string[] = ["full", "not_found"];

/**
 * Hands an open task to a session: its message first (through the peers' one way), then, once it
 * reached the session, the task marked `assigned`. Meanwhile the hand-over is on its way, and a
 * second one of the same task is refused; one whose message was not saved hands nothing over, and
 * answers `sent: false` with the reason.
 */
async function assign(core: Core, actor: BoardActor, id: number, to: string): Promise<OpResult<"task">> {
  mayHandOut(actor, "assign");
  const receiver = sessionNamed(core, to);
  const ref = { id: receiver.rec.id, name: core.registry.nameOf(receiver) };
  if (receiver.rec.role === "concierge")
    throw new RoostError("unsupported", "the concierge takes no tasks: assign it to a session");
  mustReadMessages(receiver, "a task's hand-over");
  const started = await core.board.apply(actor, { action: "assign", id, to: ref });
  let sent: Sent;
  try {
    sent = { sent: await sendAssignment(core, actor, receiver, started.task!) };
  } catch (err) {
    const back = await core.board.apply(actor, { action: "handed", id, to: ref, reached: false });
    if (!(err instanceof RoostError) || !NOT_REACHED.includes(err.code)) throw err;
    return answer(core, back, {
      sent: false,
      reason: `${ref.id} was not reached (${err.code}): ${err.message}`,
    });
  }
  return answer(core, await core.board.apply(actor, { action: "handed", id, to: ref, reached: true }), sent);
}
