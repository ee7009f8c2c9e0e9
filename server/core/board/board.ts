/**
 * The task board's rules (docs/protocol.md, "The task board"), as a pure function:
 * `step(board, actor, action, ctx)` gives the board after the action and what it changed, or
 * throws the refusal (a RoostError with the wire's code). No I/O, no clock, no registry: whether a
 * session lives and what time it is come in `ctx`, so that a property test drives every rule
 * without a daemon (test/unit/board-model.test.ts). The daemon's side (the store, the feed, the
 * messages) is task-board.ts's and task.ts's.
 *
 * A board is never changed in place: a step makes new task objects for what it changes, so the
 * tasks to write are those not identical to the board's before (`changedBetween`).
 */
import { type BoardTask, LIMITS, oneLine, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { Actor } from "../feed.js";
import { nextTask, noneToClaim } from "./next-task.js";

export { changedBetween, counts } from "./board-counts.js";

export interface Board {
  /** Oldest first (by id). */
  readonly tasks: readonly BoardTask[];
  /** The next task's id: ids are never reused. */
  readonly nextId: number;
  /** `assign`s whose message is on its way, by task id: kept in memory only. */
  readonly handovers: ReadonlyMap<number, Ref>;
}

export interface Ref {
  id: string;
  name: string;
}

/** Who acts: the hub's user, the concierge, a session, or roost itself (a session that ended). */
export type BoardActor =
  | { kind: "user" }
  | { kind: "roost" }
  | ({ kind: "concierge" } & Ref)
  | ({ kind: "session" } & Ref);

/** Who may drop, assign, and finish or release another's task: the user, or the concierge. */
export type Sender = Extract<BoardActor, { kind: "user" } | { kind: "concierge" }>;

export type BoardAction =
  | { action: "add"; title: string; detail: string | null; after: readonly number[] }
  | { action: "claim"; id: number }
  /** The oldest task the session may claim now, claimed (`not_found` when none). */
  | { action: "next" }
  | { action: "done"; id: number; result: string | null }
  | { action: "release"; id: number }
  | { action: "drop"; id: number }
  /** A hand-over starts: its message is being sent (the session was checked by the caller). */
  | { action: "assign"; id: number; to: Ref }
  /** The hand-over's message was saved for the session (`reached`), or was not. */
  | { action: "handed"; id: number; to: Ref; reached: boolean }
  /**
   * The session holds nothing any more (it failed, was stopped or removed, did not come back); `only`:
   * of its claims, those it says (a lost lease's release takes the claims made under that lease).
   */
  | { action: "ended"; session: string; why: string; only?: (task: BoardTask) => boolean };

export interface Ctx {
  /** ISO time. */
  now: string;
  /** Whether a session is live: not gone, failed, stopped or removed. */
  isLive: (id: string) => boolean;
}

/** One change, as the feed says it (a `task` entry): what, to which task, about which session. */
export interface Change {
  why: "add" | "claim" | "release" | "done" | "drop" | "assign";
  task: BoardTask;
  /** The session it is about (the entry's `id`): the holder, the assignee, else the actor's. */
  about: string | null;
  text: string;
  actor: Actor;
}

/**
 * The holder to be told, in a message, that someone else finished, released or dropped its task
 * (the daemon tells one whose job still runs: task-items.ts).
 */
export interface Tell {
  to: Ref;
  task: BoardTask;
  what: "done" | "release" | "drop";
}

export interface Step {
  board: Board;
  task?: BoardTask;
  changes: Change[];
  tells: Tell[];
  /** What was asked is so already, by this actor's own earlier step (its `done` again): nothing changed. */
  duplicate?: boolean;
}

export const EMPTY_BOARD: Board = { tasks: [], nextId: 1, handovers: new Map() };

export function actorFeed(actor: BoardActor): Actor {
  if (actor.kind === "user" || actor.kind === "roost") return { who: actor.kind, whoId: null };
  return { who: actor.name, whoId: actor.id };
}

const ROOST_ACTOR: Actor = { who: "roost", whoId: null };
const sessionOf = (actor: BoardActor) =>
  actor.kind === "session" || actor.kind === "concierge" ? actor.id : null;
const named = (r: Ref) => `${r.id} ${JSON.stringify(r.name)}`;
const finished = (t: BoardTask | undefined) => !t || t.state === "done" || t.state === "dropped";
/** The feed's text: "#id title", then what the change adds (a result, to whom, why released). */
const said = (t: BoardTask, more?: string | null) =>
  `#${t.id} ${t.title}${more ? `: ${oneLine(more).slice(0, 200)}` : ""}`;

/** The tasks in `after` that are on the board and neither done nor dropped: what it waits for. */
export function waitingFor(board: Board, task: Pick<BoardTask, "after">): BoardTask[] {
  return task.after.map((id) => find(board, id)).filter((t): t is BoardTask => !finished(t));
}

const find = (board: Board, id: number) => board.tasks.find((t) => t.id === id);

function get(board: Board, id: number): BoardTask {
  const t = find(board, id);
  if (!t) throw new RoostError("not_found", `no task #${id}: task {action: "list"} lists the board`);
  return t;
}

const replace = (board: Board, task: BoardTask): Board => ({
  ...board,
  tasks: board.tasks.map((t) => (t.id === task.id ? task : t)),
});

function withHandover(board: Board, id: number, to: Ref | null): Board {
  const handovers = new Map(board.handovers);
  if (to) handovers.set(id, to);
  else handovers.delete(id);
  return { ...board, handovers };
}

export function step(board: Board, actor: BoardActor, action: BoardAction, ctx: Ctx): Step {
  switch (action.action) {
    case "add":
      return add(board, actor, action, ctx);
    case "claim":
      return claim(board, actor, action.id, ctx);
    case "next": {
      if (actor.kind !== "session") return claim(board, actor, 0, ctx); // refused as any claim of theirs
      const next = nextTask(board, actor, ctx);
      if (!next) throw new RoostError("not_found", noneToClaim(board, actor));
      return claim(board, actor, next.id, ctx);
    }
    case "done":
    case "release":
      return finish(
        board,
        actor,
        action.action,
        action.id,
        action.action === "done" ? action.result : null,
        ctx,
      );
    case "drop":
      return drop(board, actor, action.id, ctx);
    case "assign":
      return assign(board, actor, action.id, action.to);
    case "handed":
      return handed(board, actor, action, ctx);
    case "ended":
      return ended(board, action.session, action.why, action.only);
  }
}

function add(board: Board, actor: BoardActor, a: Extract<BoardAction, { action: "add" }>, ctx: Ctx): Step {
  if (actor.kind === "roost") throw new RoostError("unsupported", "roost adds no tasks");
  const title = oneLine(a.title);
  if (title === "")
    throw new RoostError("bad_request", "task add: title must not be empty once folded to one line");
  const after = [...new Set(a.after)];
  const missing = after.filter((id) => !find(board, id));
  if (missing.length > 0)
    throw new RoostError(
      "bad_request",
      `task add: after names ${missing.map((id) => `#${id}`).join(", ")}, not on the board`,
    );
  let tasks = board.tasks;
  if (tasks.length >= LIMITS.boardTasks) {
    // Full: the oldest done or dropped task goes, so that the board keeps what is still to do.
    const gone = tasks.find((t) => finished(t));
    if (!gone)
      throw new RoostError(
        "full",
        `the board has ${LIMITS.boardTasks} tasks, none done or dropped: finish or drop some first`,
      );
    tasks = tasks.filter((t) => t !== gone);
  }
  const task: BoardTask = {
    id: board.nextId,
    title,
    detail: a.detail,
    state: "open",
    after,
    by: actorFeed(actor),
    at: ctx.now,
    owner: null,
    claimedAt: null,
    doneAt: null,
    result: null,
    assigned: null,
  };
  const next = { ...board, tasks: [...tasks, task], nextId: board.nextId + 1 };
  const change: Change = {
    why: "add",
    task,
    about: sessionOf(actor),
    text: said(task),
    actor: actorFeed(actor),
  };
  return { board: next, task, changes: [change], tells: [] };
}

function claim(board: Board, actor: BoardActor, id: number, ctx: Ctx): Step {
  if (actor.kind !== "session")
    throw new RoostError(
      "unsupported",
      "a session claims a task, on its own connection: the hub and the concierge assign one to a session instead",
    );
  const task = get(board, id);
  if (finished(task))
    throw new RoostError("bad_request", `#${id} is ${task.state}: there is nothing to claim`);
  const waits = waitingFor(board, task);
  if (waits.length > 0)
    throw new RoostError(
      "blocked",
      `#${id} waits for ${waits.map((t) => `#${t.id} (${t.state})`).join(", ")}: claim it once they are done or dropped`,
    );
  const changes: Change[] = [];
  const holder = task.owner;
  if (holder?.id === actor.id) return { board, task, changes, tells: [] }; // one's own again is fine
  if (holder && ctx.isLive(holder.id))
    throw new RoostError("conflict", `#${id} is claimed by ${named(holder)} since ${task.claimedAt}`);
  if (holder) {
    // Its holder is gone (failed, stopped, removed, or away past its grace): it held nothing.
    const open: BoardTask = { ...task, state: "open", owner: null, claimedAt: null };
    const text = said(open, `${named(holder)} is gone: taken over by ${named(actor)}`);
    changes.push({ why: "release", task: open, about: holder.id, text, actor: ROOST_ACTOR });
  }
  const claimed: BoardTask = {
    ...task,
    state: "claimed",
    owner: { id: actor.id, name: actor.name },
    claimedAt: ctx.now,
    assigned: null,
  };
  changes.push({
    why: "claim",
    task: claimed,
    about: actor.id,
    text: said(claimed),
    actor: actorFeed(actor),
  });
  return { board: replace(board, claimed), task: claimed, changes, tells: [] };
}

/** `done` and `release`: the holder's, and the hub's and the concierge's (the holder is then told). */
function finish(
  board: Board,
  actor: BoardActor,
  what: "done" | "release",
  id: number,
  result: string | null,
  ctx: Ctx,
): Step {
  if (actor.kind === "roost") throw new RoostError("unsupported", `roost does not ${what} tasks`);
  const task = get(board, id);
  if (actor.kind === "session") {
    const mine = task.owner?.id === actor.id;
    // Its own done again (an answer lost to a restart, the request sent again): so it is.
    if (what === "done" && task.state === "done" && mine)
      return { board, task, changes: [], tells: [], duplicate: true };
    // A session that no longer holds it, against one that holds it now or finished it: not its to do.
    if (task.state === "claimed" && !mine)
      throw new RoostError(
        "conflict",
        `#${id} is held by ${named(task.owner!)} now: it is no longer yours to ${what}`,
      );
    if (task.state === "done" && task.owner && !mine)
      throw new RoostError(
        "conflict",
        `#${id} was finished by ${named(task.owner)}: it is no longer yours to ${what}`,
      );
    // Released already (its own release again, or its claim let go): it holds nothing of it.
    if (what === "release" && task.state === "open") return { board, task, changes: [], tells: [] };
  }
  if (task.state !== "claimed")
    throw new RoostError(
      "bad_request",
      task.state === "open"
        ? `#${id} is open: no session holds it (a session claims it first${what === "done" ? "; the hub may drop it" : ""})`
        : `#${id} is ${task.state} already`,
    );
  const holder = task.owner!;
  const next: BoardTask =
    what === "done"
      ? { ...task, state: "done", doneAt: ctx.now, result }
      : { ...task, state: "open", owner: null, claimedAt: null };
  const by = actor.kind === "user" ? "the user" : actor.id === holder.id ? "its holder" : named(actor);
  const text = what === "done" ? said(next, result) : said(next, `released by ${by}`);
  const change: Change = { why: what, task: next, about: holder.id, text, actor: actorFeed(actor) };
  const tells: Tell[] = sessionOf(actor) !== holder.id ? [{ to: holder, task: next, what }] : [];
  return { board: replace(board, next), task: next, changes: [change], tells };
}

/** `drop` and `assign` are the hub's and the concierge's: a session releases, or claims, itself. */
export function mayHandOut(actor: BoardActor, what: "drop" | "assign"): asserts actor is Sender {
  if (actor.kind === "user" || actor.kind === "concierge") return;
  throw new RoostError(
    "unsupported",
    `${what} is the hub's and the concierge's: a session ${what === "drop" ? "releases its task" : "claims a task itself"}`,
  );
}

function drop(board: Board, actor: BoardActor, id: number, ctx: Ctx): Step {
  mayHandOut(actor, "drop");
  const task = get(board, id);
  if (finished(task)) throw new RoostError("bad_request", `#${id} is ${task.state}: it stays as it is`);
  const next: BoardTask = { ...task, state: "dropped", doneAt: ctx.now };
  const holder = task.state === "claimed" ? task.owner : null;
  const change: Change = {
    why: "drop",
    task: next,
    about: holder?.id ?? sessionOf(actor),
    text: said(next),
    actor: actorFeed(actor),
  };
  const tells: Tell[] = holder ? [{ to: holder, task: next, what: "drop" }] : [];
  return { board: withHandover(replace(board, next), id, null), task: next, changes: [change], tells };
}

function assign(board: Board, actor: BoardActor, id: number, to: Ref): Step {
  mayHandOut(actor, "assign");
  const task = get(board, id);
  if (task.state !== "open")
    throw new RoostError(
      "bad_request",
      task.state === "claimed"
        ? `#${id} is claimed by ${named(task.owner!)}: only an open task is handed over (release it first)`
        : `#${id} is ${task.state}: only an open task is handed over`,
    );
  const on = board.handovers.get(id);
  if (on)
    throw new RoostError(
      "bad_request",
      `#${id} is being handed to ${named(on)}: wait until it has reached it`,
    );
  return { board: withHandover(board, id, to), task, changes: [], tells: [] };
}

/** The hand-over's message was saved for the session (or not): an open task is marked `assigned`. */
function handed(
  board: Board,
  actor: BoardActor,
  a: Extract<BoardAction, { action: "handed" }>,
  ctx: Ctx,
): Step {
  const cleared = withHandover(board, a.id, null);
  const task = find(cleared, a.id);
  // Claimed or dropped meanwhile: the claim (or the drop) stands, and the message was only news.
  if (!a.reached || !task || task.state !== "open") return { board: cleared, task, changes: [], tells: [] };
  const next: BoardTask = { ...task, assigned: { id: a.to.id, name: a.to.name, at: ctx.now } };
  const change: Change = {
    why: "assign",
    task: next,
    about: a.to.id,
    text: said(next, `to ${a.to.name}`),
    actor: actorFeed(actor),
  };
  return { board: replace(cleared, next), task: next, changes: [change], tells: [] };
}

/** The session holds nothing more: each task it held (of them, those `only` says) is open again. */
function ended(board: Board, session: string, why: string, only?: (task: BoardTask) => boolean): Step {
  let next = board;
  const changes: Change[] = [];
  for (const task of board.tasks) {
    if (task.state !== "claimed" || task.owner?.id !== session || (only && !only(task))) continue;
    const open: BoardTask = { ...task, state: "open", owner: null, claimedAt: null };
    next = replace(next, open);
    changes.push({
      why: "release",
      task: open,
      about: session,
      text: said(open, `${named(task.owner)} ${why}`),
      actor: ROOST_ACTOR,
    });
  }
  return { board: next, changes, tells: [] };
}
