/**
 * `task` (docs/protocol.md, "The task board"): the shared task
 * board, on any connection: the hub's (the actor is the user), the concierge's, a session's.
 */
import Type, { type Static, type TSchema } from "typebox";
import { TASK_VIEWS } from "../board-view.js";
import { JobId, LIMITS, oneOf, RequestId, SessionRef } from "../schema.js";

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const TASK_ACTIONS = ["list", "add", "claim", "done", "release", "drop", "assign"] as const;
export const TASK_STATES = ["open", "claimed", "done", "dropped"] as const;
/** Why a task changed: its `task` feed entry's `why`. */
export const TASK_WHYS = ["add", "claim", "release", "done", "drop", "assign"] as const;
/**
 * Where `assign`'s message went: to a connected agent, waiting for the session, or its job started
 * for it; `false` when it did not reach the session (the task stays unassigned, `reason` says why).
 */
export const TASK_SENT = ["delivered", "queued", "started"] as const;

/** A task's id: a positive integer, or a string of digits (a CLI's argument, a query parameter). */
export const TaskId = Type.Union([
  Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  Type.String({ pattern: "^[0-9]{1,15}$" }),
]);

export const BoardTask = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  detail: nullable(Type.String()),
  state: oneOf(TASK_STATES),
  /** Tasks that must be done or dropped before this one may be claimed. */
  after: Type.Array(Type.Integer()),
  /** Who added it: `user`, or a session's name with its id. */
  by: Type.Object({ who: Type.String(), whoId: nullable(JobId) }),
  at: Type.String(),
  /** The session that claimed it (kept once it is done, as who did it). */
  owner: nullable(SessionRef),
  claimedAt: nullable(Type.String()),
  /** When it was done, or dropped. */
  doneAt: nullable(Type.String()),
  result: nullable(Type.String()),
  /** The session it was handed to (`assign`), until one claims it. */
  assigned: nullable(Type.Object({ id: JobId, name: Type.String(), at: Type.String() })),
  /**
   * The word every face shows (board-view.ts, `taskView`): its state, `blocked` for an open one
   * whose `after` is not all done or dropped, `failed` for a done one whose result says so. In the
   * op's answers; the board as stored has none.
   */
  view: Type.Optional(oneOf(TASK_VIEWS)),
});
export type BoardTask = Static<typeof BoardTask>;

export const task = {
  args: Type.Object({
    action: oneOf(TASK_ACTIONS),
    /** `claim`, `done`, `release`, `drop`, `assign`: the task. */
    id: Type.Optional(TaskId),
    /** `claim` without an id: the oldest task this session may claim now, claimed in the same step. */
    next: Type.Optional(Type.Boolean()),
    /** `add`, `claim` with `next`: a resend with the same id answers what the first did (`duplicate`). */
    requestId: Type.Optional(RequestId),
    /** `add`: */
    title: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.taskTitle })),
    detail: Type.Optional(nullable(Type.String({ maxLength: LIMITS.taskDetail }))),
    after: Type.Optional(Type.Array(TaskId, { maxItems: LIMITS.boardTasks })),
    /** `done`: */
    result: Type.Optional(nullable(Type.String({ maxLength: LIMITS.taskResult }))),
    /** `done`: it failed; the result is kept saying so ("failed: …"), and the task shows `failed`. */
    failed: Type.Optional(Type.Boolean()),
    /** `assign`: a session's id, or a name exactly one live session has. */
    to: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  }),
  result: Type.Object({
    /** The board, oldest first. */
    tasks: Type.Array(BoardTask),
    /** The task the action was about, as it is now. */
    task: Type.Optional(BoardTask),
    /** `assign`: where its message went, or `false`: it did not reach the session. */
    sent: Type.Optional(Type.Union([oneOf(TASK_SENT), Type.Literal(false)])),
    /** `assign` with `sent: false`: why the session was not reached (the refusal's code and words). */
    reason: Type.Optional(Type.String()),
    /** A resend (the same `requestId`, or the holder's own `done` again): what the first did, nothing changed. */
    duplicate: Type.Optional(Type.Boolean()),
  }),
} as const;

/** Each action's args, as the clients' helpers send them (the wire's schema is `task.args`). */
export type TaskAction =
  | { action: "list" }
  | {
      action: "add";
      title: string;
      detail?: string | null;
      after?: (number | string)[];
      requestId?: string;
    }
  | { action: "claim"; id: number | string }
  | { action: "claim"; next: true; requestId?: string }
  | { action: "done"; id: number | string; result?: string | null; failed?: boolean }
  | { action: "release"; id: number | string }
  | { action: "drop"; id: number | string }
  | { action: "assign"; id: number | string; to: string };
