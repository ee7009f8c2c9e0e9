/**
 * The schema set: one TypeBox definition of every message on the wire (docs/protocol.md) and of
 * every hub op's args and result (docs/protocol.md, "The hub's ops"). The daemon validates with
 * these, the HTTP face publishes them, the SDKs take their types from them.
 */
import Type, { type Static, type TLiteral, type TSchema, type TUnion } from "typebox";

import { jsonBytes, tooDeep } from "./bounds.js";
import { RowBudget } from "./budgets.js";
// Types only: schedules.ts, concierge.ts and conversation.ts build on this file's schemas.
import type { ConciergeEvent } from "./concierge.js";
import type { ConversationEvent } from "./conversation.js";
import { LIMITS } from "./limits.js";
import type { QueueEvent } from "./queue.js";
import { VIEW_STATES } from "./row-state.js";
import type { ScheduleEvent } from "./schedules.js";
import { Overlap, Worktree } from "./worktree.js";

export { LIMITS, NULL_REPORT_FIELDS } from "./limits.js";

export const oneOf = <const T extends readonly string[]>(values: T) =>
  Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<[TLiteral<T[number]>]>;
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const text = (max: number) => Type.String({ maxLength: max });

export const STATES = ["working", "blocked", "done", "failed"] as const;
export const STATUSES = ["busy", "waiting", "idle"] as const;
export const WAITING_FOR = ["question", "dialog", "first-prompt"] as const;
export const LIVES = ["starting", "running", "exited", "stopped"] as const;
export const REPLY_MODES = ["steer", "followUp"] as const;
/** What a job is: run in a terminal, speaking the protocol, or a foreground pi (`peer_register`). */
export const JOB_KINDS = ["terminal", "protocol", "foreground"] as const;
/** How a job's agent began at its last start: going on with its conversation, or anew (a row's `conversation`). */
export const CONVERSATIONS = ["resumed", "new"] as const;
/**
 * Why roost stopped a job by itself (docs/budgets.md): `budget`, its budget was spent; `idle`, it
 * had nothing to do for its `idleStop` time, or was put to sleep from the hub. A stop by a person
 * (`stop`) has none.
 */
export const STOP_REASONS = ["budget", "idle"] as const;
export type StopReason = (typeof STOP_REASONS)[number];
/**
 * A peer item's kind (docs/protocol.md, "The peer ops": Peer items); a `deliver` without one is
 * the user's reply.
 */
export const ITEM_KINDS = ["message", "report", "notice", "digest"] as const;
/** The sender as the receiver sees it. */
export const RELATIONS = ["parent", "child", "peer", "concierge", "roost"] as const;

export const JobId = Type.String({ minLength: 1, maxLength: 64 });
export const Token = Type.String({ minLength: 1, maxLength: 256 });
/**
 * A name the user or a session gives a job (dispatch's `name`, `rename`): at most LIMITS.name
 * characters, not empty. The daemon then folds it and refuses a reserved one (server/core/jobs/names.ts).
 */
export const JobName = Type.String({ minLength: 1, maxLength: LIMITS.name });
/** The args or the result of an op that has none. */
export const Empty = Type.Object({});
/** docs/protocol.md, "roost's choices": Request ids, 1–64 of A-Z a-z 0-9 _ . : - */
export const RequestId = Type.String({ pattern: "^[A-Za-z0-9_.:-]{1,64}$" });

/**
 * A value kept as the agent sends it (`usage`, pi's `attachSignal`): any JSON, bounded in depth and
 * size so that a row holding it can always be encoded, pushed and written.
 */
const freeForm = <T extends TSchema>(schema: T) =>
  Type.Refine(
    schema,
    (v) => tooDeep(v, LIMITS.depth) === null && jsonBytes(v) <= LIMITS.freeFormBytes,
    () => `must be at most ${LIMITS.freeFormBytes} bytes as JSON and ${LIMITS.depth} levels deep`,
  );

/** A typed object of a report: only its known fields are kept (`knownFields` in server/validate.ts). */
export const Context = Type.Object({
  tokens: Type.Optional(Type.Number()),
  window: Type.Optional(Type.Number()),
  percent: Type.Optional(Type.Number()),
});

/** The report's fields, each null when left out (attachSignal/attachRepaint are pi's, kept as sent). */
const reportFields = {
  state: oneOf(STATES),
  status: nullable(oneOf(STATUSES)),
  waitingFor: nullable(oneOf(WAITING_FOR)),
  summary: nullable(text(LIMITS.summary)),
  question: nullable(text(LIMITS.question)),
  choices: nullable(Type.Array(text(LIMITS.choice), { maxItems: LIMITS.choices })),
  tool: nullable(text(LIMITS.tool)),
  error: nullable(text(LIMITS.error)),
  name: nullable(text(LIMITS.name)),
  model: nullable(text(LIMITS.model)),
  thinking: nullable(text(LIMITS.thinking)),
  // Capability fields: `context` typed (its known fields kept), the others kept as sent.
  context: nullable(Context),
  usage: nullable(freeForm(Type.Record(Type.String(), Type.Unknown()))),
  prLinks: nullable(Type.Array(text(LIMITS.prLink), { maxItems: LIMITS.prLinks })),
  remoteAt: nullable(text(LIMITS.remoteAt)),
  attachSignal: freeForm(Type.Unknown()),
  attachRepaint: freeForm(Type.Unknown()),
  agentItems: nullable(Type.Boolean()),
};
type ReportFields = typeof reportFields;

/** A report: a full snapshot; what is left out is null. `state` is the one field it must carry. */
export const Report = Type.Object({
  state: reportFields.state,
  ...(Object.fromEntries(
    Object.entries(reportFields)
      .filter(([key]) => key !== "state")
      .map(([key, schema]) => [key, Type.Optional(schema)]),
  ) as { [K in Exclude<keyof ReportFields, "state">]: ReturnType<typeof Type.Optional<ReportFields[K]>> }),
});
export type Report = Static<typeof Report>;
/** The report fields a row carries. */
export const REPORT_FIELDS = Object.keys(reportFields) as (keyof ReportFields)[];
/** A report with every field present (null where the agent left it out): what a row holds. */
export type FullReport = Static<ReturnType<typeof Type.Object<ReportFields>>>;

export const AgentInfo = Type.Object({
  name: Type.String({ maxLength: LIMITS.name }),
  version: Type.String({ maxLength: 100 }),
});
export type AgentInfo = Static<typeof AgentInfo>;

/** A session as `send`, `handback` and `watch` name it back: its id and its name. */
export const SessionRef = Type.Object({ id: JobId, name: Type.String() });
export type SessionRef = Static<typeof SessionRef>;
/** Where a peer item went: to a connected agent, or waiting (the receiver away or ended), or not at all. */
export const ITEM_OUTCOMES = ["delivered", "queued", "duplicate"] as const;
/** A peer's text: its envelope is added by roost. */
export const PeerText = Type.String({ minLength: 1, maxLength: LIMITS.peerText });

/** A session's watch not yet fired (`watch`), as its row lists it: on whom, for what, until when. */
export const Watching = Type.Object({
  id: JobId,
  name: Type.String(),
  /** `handback`: a watch on its own children (`watch {children: true}`), its `id` the watcher's own. */
  when: Type.Union([Type.Literal("idle"), Type.Literal("ended"), Type.Literal("handback")]),
  expiresAt: Type.String(),
});
export type Watching = Static<typeof Watching>;

/** What a running job's processes use (docs/budgets.md, "Resources"), as the pty host last read it. */
export const Resources = Type.Object({
  /** Percent of one core over the last few seconds (100 = one core busy), to 0.1. */
  cpu: Type.Number(),
  /** CPU seconds of its live processes, user and system. */
  cpuSeconds: Type.Number(),
  /** Bytes resident, its processes summed. */
  rss: Type.Integer(),
  /** Proportional set size in bytes; null until first read (it is read less often). */
  pss: nullable(Type.Integer()),
  /** How many processes it has. */
  procs: Type.Integer(),
  /** ISO time its screen or its agent's reports last changed; null while neither has. */
  activeAt: nullable(Type.String()),
});
export type Resources = Static<typeof Resources>;

/** A row (docs/protocol.md, "A row"): the job's record and its latest report. */
export const Row = Type.Object({
  ...reportFields,
  id: JobId,
  name: Type.String(),
  profile: Type.String(),
  role: nullable(Type.Literal("concierge")),
  kind: oneOf(JOB_KINDS),
  pinned: Type.Boolean(),
  order: Type.Integer(),
  life: oneOf(LIVES),
  exitCode: nullable(Type.Integer()),
  connected: Type.Boolean(),
  capabilities: Type.Array(Type.String()),
  agent: nullable(AgentInfo),
  pending: Type.Integer(),
  lastSeq: Type.Integer(),
  /**
   * What it asks, as a number (docs/protocol.md, "A row"): it moves whenever its question or choices
   * change and when it is answered; \`reply\`'s \`ifAsked\` names it. Always set on this daemon's rows;
   * optional so that a remote of an older roost, whose rows lack it, is still read.
   */
  asked: Type.Optional(Type.Integer()),
  suggested: nullable(Type.Object({ text: Type.String(), why: Type.String(), at: Type.String() })),
  parent: nullable(JobId),
  /**
   * The one word every face shows for it (row-state.ts's `viewState` of this row): `blocked`,
   * `failed`, `your turn`, `waiting`, `working`, `starting`, `done`, `stopped`.
   */
  view: oneOf(VIEW_STATES),
  /** The children it spawned that are still at work (not handed back, not ended): while any is, and it rests, it is `waiting`. */
  waitingOn: Type.Array(JobId),
  /** False while a protocol agent has not begun its first turn (it shows `starting`); true otherwise. */
  begun: Type.Boolean(),
  /** Its watches that have not fired, oldest first (a session's; empty for the rest). */
  watches: Type.Array(Watching),
  pid: nullable(Type.Integer()),
  cwd: Type.String(),
  /** Its git worktree and branch (docs/worktrees.md); null for a job run where it was told. */
  worktree: nullable(Worktree),
  /**
   * The other jobs of its repository that changed files it changed too (docs/worktrees.md,
   * "Overlaps"), and whether they would conflict; empty when none. Always set on this daemon's
   * rows; optional so that a remote of an older roost, whose rows lack it, is still read.
   */
  overlaps: Type.Optional(Type.Array(Overlap)),
  /**
   * It runs in roost's sandbox (docs/security.md): the file system read-only but for its tree,
   * roost's home hidden, roost reached through a socket of its own. Always set on this daemon's
   * rows; optional so that a remote of an older roost, whose rows lack it, is still read (absent:
   * not sandboxed).
   */
  sandboxed: Type.Optional(Type.Boolean()),
  /**
   * Its agent's conversation at its last start (docs/agents.md, "Resumed conversations"): `resumed`
   * where it went on with the one before (pi's session file, an ACP agent's `session/load`), `new`
   * where it began one; null where roost cannot tell (a shell, a protocol agent of your own), and
   * for a protocol agent until it has said. Optional so that a remote of an older roost is still read.
   */
  conversation: Type.Optional(nullable(oneOf(CONVERSATIONS))),
  /**
   * Why roost stopped it by itself (docs/budgets.md), while it stays stopped: `budget` or `idle`;
   * null otherwise (running, exited, or stopped by a person). Optional so that a remote of an older
   * roost, whose rows lack it, is still read.
   */
  stopReason: Type.Optional(nullable(oneOf(STOP_REASONS))),
  /**
   * What its processes use (docs/budgets.md, "Resources"), read every 5 s; null while it does not
   * run (or before the first read). Optional so that a remote of an older roost is still read.
   */
  resources: Type.Optional(nullable(Resources)),
  /**
   * What it spent and the budget nearest to its end (docs/budgets.md): always set on this daemon's
   * rows; optional so that a remote of an older roost, whose rows lack it, is still read.
   */
  budget: Type.Optional(nullable(RowBudget)),
  startedAt: nullable(Type.String()),
  endedAt: nullable(Type.String()),
  updatedAt: Type.String(),
  /**
   * Another daemon's job (a remote in roost.json, docs/fleet.md): the remote's name, its id then
   * `name:id`; absent for this daemon's own.
   */
  daemon: Type.Optional(Type.String()),
  /** Another daemon's job: false while that daemon does not answer (the row as it was last seen). */
  reachable: Type.Optional(Type.Boolean()),
});
export type Row = Static<typeof Row>;

/** A remote daemon (roost.json's `remotes`, docs/fleet.md) as this daemon sees it now. */
export const RemoteStatus = Type.Object({
  name: Type.String(),
  url: Type.String(),
  reachable: Type.Boolean(),
  /** Why it is not reachable (what connecting to it said), or null. */
  error: nullable(Type.String()),
});
export type RemoteStatus = Static<typeof RemoteStatus>;

/** One entry of the events feed (docs/protocol.md, `events`). */
export const FeedEntry = Type.Object({
  cursor: Type.Integer(),
  at: Type.String(),
  id: JobId,
  kind: Type.String(),
  text: Type.String(),
  who: Type.String(),
  whoId: nullable(Type.String()),
  /** Why, for the kinds that say it: a `task` entry's change (`add`, `claim`, `release`, …). */
  why: Type.Optional(Type.String()),
});
export type FeedEntry = Static<typeof FeedEntry>;

// ---- The wire's envelopes -------------------------------------------------------------------

export const RequestEnvelope = Type.Object({
  id: Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 200 }), Type.Null()])),
  op: Type.String({ minLength: 1, maxLength: 64 }),
  args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type RequestEnvelope = Static<typeof RequestEnvelope>;
export type ResponseEnvelope =
  | { id: number | string | null; ok: true; result: unknown }
  | { id: number | string | null; ok: false; error: string; code: string };

/** One item of a delivery that brings several (`items`): as it would have come alone. */
export const BatchedItem = Type.Object({
  seq: Type.Integer({ minimum: 1 }),
  text: Type.String(),
  kind: Type.Optional(oneOf(ITEM_KINDS)),
  from: Type.Optional(Type.Object({ id: JobId, name: Type.String() })),
  relation: Type.Optional(oneOf(RELATIONS)),
});
export type BatchedItem = Static<typeof BatchedItem>;
/** Who answered a reply: the user, or the concierge in their place. */
export const ANSWERED_BY = ["user", "concierge"] as const;

export const DeliverEvent = Type.Object({
  event: Type.Literal("deliver"),
  id: JobId,
  seq: Type.Integer({ minimum: 1 }),
  text: Type.String(),
  mode: Type.Optional(oneOf(REPLY_MODES)),
  kind: Type.Optional(oneOf(ITEM_KINDS)),
  from: Type.Optional(Type.Object({ id: JobId, name: Type.String() })),
  relation: Type.Optional(oneOf(RELATIONS)),
  /**
   * A digest's reason: `events` (what happened), `order` (a standing order is due); a reply the
   * concierge gave in the user's place (`answeredBy: "concierge"`), its reason.
   */
  why: Type.Optional(Type.String()),
  /** Several items at once (to an agent that said `item-batches`): `seq` is the last's, `text` theirs all (`batchText`). */
  items: Type.Optional(Type.Array(BatchedItem)),
  /** A reply's answerer: `concierge` when the concierge answered in the user's place; absent, the user. */
  answeredBy: Type.Optional(oneOf(ANSWERED_BY)),
});
export type DeliverEvent = Static<typeof DeliverEvent>;
export const RowEvent = Type.Object({ event: Type.Literal("row"), row: Row });
export const RemovedEvent = Type.Object({ event: Type.Literal("removed"), id: JobId });
export const FeedEvent = Type.Object({ event: Type.Literal("feed"), entry: FeedEntry });
/**
 * The task board's counts (docs/protocol.md, "The task board"): `open` tasks a session may claim
 * now, `blocked` ones (open, waiting on a task in their `after`), `claimed`, `done` (dropped ones
 * are not counted).
 */
export const BoardCounts = Type.Object({
  open: Type.Integer(),
  claimed: Type.Integer(),
  blocked: Type.Integer(),
  done: Type.Integer(),
});
export type BoardCounts = Static<typeof BoardCounts>;
/** Pushed to subscribers on every change of the board (coalesced per turn of the event loop). */
export const BoardEvent = Type.Object({ event: Type.Literal("board"), ...BoardCounts.properties });
/** A remote daemon became reachable, or stopped answering (its rows come again with `reachable`). */
export const RemoteEvent = Type.Object({
  event: Type.Literal("remote"),
  ...RemoteStatus.properties,
  /** Let go by `remotes-reload` (gone from roost.json): the hub forgets it. */
  gone: Type.Optional(Type.Literal(true)),
});
export type PushEvent =
  | Static<typeof RemoteEvent>
  | Static<typeof RowEvent>
  | Static<typeof RemovedEvent>
  | Static<typeof FeedEvent>
  | Static<typeof BoardEvent>
  | ScheduleEvent
  | ConciergeEvent
  | ConversationEvent
  | QueueEvent;
/** A job's terminal output, to a connection that attached to it. */
export const OutputEvent = Type.Object({ event: Type.Literal("output"), id: JobId, data: Type.String() });
/** The attachment ended without the viewer asking: the job ended or was removed. */
export const DetachedEvent = Type.Object({ event: Type.Literal("detached"), id: JobId, why: Type.String() });
export type TerminalEvent = Static<typeof OutputEvent> | Static<typeof DetachedEvent>;
export type WireEvent = DeliverEvent | PushEvent | TerminalEvent;
