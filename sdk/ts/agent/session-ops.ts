/**
 * The ops a session calls on its own connection, each a thin `call` with the wire's args and
 * result (protocol.md, "The peer ops"; the task board): one definition that both `Reporter` and
 * `RoostAgent` have, so that `agent.send(...)` and `agent.reporter.send(...)` are the same code.
 *
 * The schema set is imported for its types alone (they vanish in the build).
 */
import { randomUUID } from "node:crypto";
import type { BoardTask, OpArgs, OpResult, TaskAction } from "../protocol/index.js";

/**
 * The request id of an op that makes something (a message, a child, a task, a claim of the next
 * task): the caller's, else a new one. The client sends a request again with the same args when
 * roost restarted before it answered (reporter.ts), and roost answers a resend with what the
 * first made (`duplicate: true`), so nothing is made twice.
 */
const withRequestId = <T extends { requestId?: string }>(args: T): T & { requestId: string } => ({
  ...args,
  requestId: args.requestId ?? `r-${randomUUID()}`,
});

/** A session as `peers` lists it. */
export type Peer = OpResult<"peers">["peers"][number];
/** What `spawn` takes: `dispatch`'s args for a session; the child's `parent` is the asker. */
export type SpawnArgs = OpArgs<"spawn">;
/** What `peer_register` takes: the foreground session's name, and its own session key. */
export type RegisterArgs = OpArgs<"peer_register">;
/** What each task action answers: the board (oldest first), and the task it was about as it is now. */
export type TaskResult = OpResult<"task">;
export type { BoardTask };
/** When a watch fires: the session's next stop (`idle`), or its end (`ended`). */
export type WatchWhen = OpArgs<"watch">["when"];

export abstract class SessionOps {
  /** Any op on the session's connection; rejects with an `AgentCallError` carrying the wire's code. */
  abstract call(op: string, args?: Record<string, unknown>): Promise<unknown>;

  // ---- the peers ---------------------------------------------------------------------------

  /** Every session on the list, this one's own marked `self: true`. */
  async peers(): Promise<Peer[]> {
    return ((await this.call("peers", {})) as OpResult<"peers">).peers;
  }

  /**
   * A message to another session (an id, or a name exactly one live session has): `delivered`,
   * `queued` (it is away) or `duplicate` (the same text to it within a minute, not sent again).
   */
  send(
    to: string,
    text: string,
    opts: { mode?: "steer" | "followUp"; requestId?: string } = {},
  ): Promise<OpResult<"send">> {
    return this.call("send", withRequestId({ to, text, ...opts })) as Promise<OpResult<"send">>;
  }

  /** A child session: `dispatch` for a session; its `parent` is this one. */
  spawn(args: SpawnArgs): Promise<OpResult<"spawn">> {
    return this.call("spawn", withRequestId({ ...args })) as Promise<OpResult<"spawn">>;
  }

  /**
   * This session's result, to its parent (a `report` item). `done` (the default, true) ends it:
   * its row says done at once, and roost stops its process once the parent has the item.
   */
  handback(text: string, opts: { done?: boolean; requestId?: string } = {}): Promise<OpResult<"handback">> {
    return this.call("handback", withRequestId({ text, ...opts })) as Promise<OpResult<"handback">>;
  }

  /** A `notice` item, once, when that session next stops (`idle`) or has ended (`ended`). */
  watch(id: string, when: WatchWhen): Promise<OpResult<"watch">> {
    return this.call("watch", { id, when }) as Promise<OpResult<"watch">>;
  }

  /**
   * One `notice`, once the last of this session's children is in (`handback`: handed back or
   * ended; `ended`: ended); their handbacks meanwhile come with it, as one delivery.
   */
  watchChildren(when: "handback" | "ended"): Promise<OpResult<"watch">> {
    return this.call("watch", { children: true, when }) as Promise<OpResult<"watch">>;
  }

  // ---- the task board (`task {action, ...}`; docs/protocol.md, "The task board") ---------

  /** Every task on the board, oldest first (done and dropped ones too). */
  async tasks(): Promise<BoardTask[]> {
    return ((await this.call("task", { action: "list" })) as TaskResult).tasks;
  }

  /**
   * Takes a task: refused `blocked` while a task in its `after` is neither done nor dropped,
   * `conflict` while another live session holds it, `bad_request` once it is done or dropped.
   */
  claimTask(id: number | string): Promise<TaskResult> {
    return this.task({ action: "claim", id });
  }

  /**
   * Takes the oldest task this session may claim now (open, its `after` all done or dropped, not
   * handed to another), in one step: refused `not_found` when there is none, saying why.
   */
  claimNext(opts: { requestId?: string } = {}): Promise<TaskResult> {
    return this.task(withRequestId({ action: "claim" as const, next: true as const, ...opts }));
  }

  /** The task this session holds is done (`result`: what came of it, in a line or two). */
  taskDone(id: number | string, result?: string): Promise<TaskResult> {
    return this.task({ action: "done", id, ...(result === undefined ? {} : { result }) });
  }

  /** Gives a claimed task back to the board, open again. */
  releaseTask(id: number | string): Promise<TaskResult> {
    return this.task({ action: "release", id });
  }

  /** A new open task; `after`: the tasks that must be done (or dropped) before it may be claimed. */
  addTask(
    title: string,
    opts: { detail?: string; after?: (number | string)[]; requestId?: string } = {},
  ): Promise<TaskResult> {
    return this.task(withRequestId({ action: "add" as const, title, ...opts }));
  }

  private task(args: TaskAction): Promise<TaskResult> {
    return this.call("task", { ...args }) as Promise<TaskResult>;
  }
}
