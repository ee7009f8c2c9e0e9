/**
 * Every op's args and result (agent-protocol.md, "Ops"; control-plane.md, "The hub's ops").
 * The op table in server/ops pairs each with its handler; HTTP routes and OpenAPI come from here.
 */
import Type, { type Static } from "typebox";
import {
  AgentInfo,
  FeedEntry,
  JobId,
  LIMITS,
  oneOf,
  REPLY_MODES,
  Report,
  RequestId,
  Row,
  Token,
} from "./schema.js";

const Empty = Type.Object({});
const TokenInfo = Type.Object({ name: Type.String(), readOnly: Type.Boolean(), createdAt: Type.String() });
const oneLine = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const OPS = {
  // -- the agent's ops, on its job's connection --
  hello: {
    args: Type.Object({
      protocol: Type.Integer({ minimum: 1 }),
      agent: Type.Optional(AgentInfo),
      capabilities: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 })),
    }),
    result: Type.Object({
      protocol: Type.Integer(),
      daemon: Type.Object({ name: Type.String(), version: Type.String() }),
      capabilities: Type.Array(Type.String()),
    }),
  },
  report: {
    args: Type.Object({ id: JobId, token: Token, report: Report }),
    result: Empty,
  },
  ack: {
    args: Type.Object({
      id: JobId,
      token: Token,
      seq: Type.Integer({ minimum: 1 }),
      exact: Type.Optional(Type.Boolean()),
    }),
    result: Empty,
  },
  // -- the hub's ops --
  list: {
    args: Type.Object({ id: Type.Optional(JobId) }),
    result: Type.Object({ rows: Type.Array(Row) }),
  },
  dispatch: {
    args: Type.Object({
      profile: oneLine(100),
      task: Type.Optional(Type.String({ maxLength: LIMITS.text })),
      name: Type.Optional(oneLine(LIMITS.name)),
      cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
      requestId: Type.Optional(RequestId),
    }),
    result: Type.Object({ job: Row, duplicate: Type.Optional(Type.Boolean()) }),
  },
  reply: {
    args: Type.Object({
      id: JobId,
      text: Type.String({ minLength: 1, maxLength: LIMITS.text }),
      mode: Type.Optional(oneOf(REPLY_MODES)),
      requestId: Type.Optional(RequestId),
    }),
    result: Type.Object({
      saved: Type.Literal(true),
      seq: Type.Optional(Type.Integer()),
      duplicate: Type.Optional(Type.Literal(true)),
      stopped: Type.Optional(Type.Literal(true)),
    }),
  },
  stop: { args: Type.Object({ id: JobId }), result: Empty },
  rm: { args: Type.Object({ id: JobId }), result: Empty },
  respawn: { args: Type.Object({ id: JobId }), result: Type.Object({ job: Row }) },
  pin: { args: Type.Object({ id: JobId, pinned: Type.Boolean() }), result: Empty },
  rename: { args: Type.Object({ id: JobId, name: oneLine(LIMITS.name) }), result: Empty },
  reorder: {
    args: Type.Object({ ids: Type.Array(JobId, { minItems: 1, maxItems: 10000 }) }),
    result: Empty,
  },
  subscribe: { args: Empty, result: Type.Object({ rows: Type.Array(Row) }) },
  events: {
    args: Type.Object({
      after: Type.Optional(Type.Integer({ minimum: 0 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.feedKept })),
      id: Type.Optional(JobId),
    }),
    result: Type.Object({ events: Type.Array(FeedEntry), cursor: Type.Integer() }),
  },
  shutdown: { args: Empty, result: Empty },
  // A job's replies not yet taken (acked by its agent, or typed into its terminal), oldest first.
  pending: {
    args: Type.Object({ id: JobId }),
    result: Type.Object({
      replies: Type.Array(
        Type.Object({
          seq: Type.Integer(),
          text: Type.String(),
          mode: Type.Union([oneOf(REPLY_MODES), Type.Null()]),
          // null: the user's; else a peer's item
          kind: Type.Union([Type.String(), Type.Null()]),
          at: Type.String(),
        }),
      ),
    }),
  },
  // What the hub's pages need to know: the profiles to dispatch, and what this caller may do.
  profiles: {
    args: Empty,
    result: Type.Object({
      profiles: Type.Array(
        Type.Object({
          name: Type.String(),
          description: Type.Union([Type.String(), Type.Null()]),
          command: Type.Array(Type.String()),
          task: oneOf(["type", "argv"] as const),
          protocol: Type.Boolean(),
        }),
      ),
    }),
  },
  whoami: {
    args: Empty,
    result: Type.Object({
      // The named token this caller used (null: the owner's token in $ROOST_HOME/token, or the socket).
      token: Type.Union([Type.String(), Type.Null()]),
      readOnly: Type.Boolean(),
      daemon: Type.Object({ name: Type.String(), version: Type.String() }),
    }),
  },
  // -- HTTP tokens (control-plane.md, "Auth"): on the unix socket only, the owner's --
  token: {
    args: Type.Object({
      action: oneOf(["link", "create", "revoke", "list"] as const),
      name: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_.-]{1,64}$" })),
      readOnly: Type.Optional(Type.Boolean()),
    }),
    result: Type.Object({
      // The hub's address, and a login link carrying the token (`link`, `create`).
      url: Type.Optional(Type.String()),
      link: Type.Optional(Type.String()),
      token: Type.Optional(TokenInfo),
      tokens: Type.Optional(Type.Array(TokenInfo)),
    }),
  },
  // -- a job's live terminal (`roost attach`; the hub's terminal view) --
  attach: {
    args: Type.Object({ id: JobId }),
    // The screen as ANSI text that, written to a terminal of this size, draws it; then `output`
    // events carry what follows, exactly, until `detach`, the job's end, or the connection's.
    result: Type.Object({ screen: Type.String(), cols: Type.Integer(), rows: Type.Integer() }),
  },
  detach: { args: Type.Object({ id: JobId }), result: Empty },
  input: {
    args: Type.Object({ id: JobId, data: Type.String({ minLength: 1, maxLength: LIMITS.text }) }),
    result: Empty,
  },
  resize: {
    args: Type.Object({
      id: JobId,
      cols: Type.Integer({ minimum: 2, maximum: 1000 }),
      rows: Type.Integer({ minimum: 2, maximum: 500 }),
    }),
    result: Empty,
  },
} as const;

export type OpName = keyof typeof OPS;
export type OpArgs<K extends OpName> = Static<(typeof OPS)[K]["args"]>;
export type OpResult<K extends OpName> = Static<(typeof OPS)[K]["result"]>;
