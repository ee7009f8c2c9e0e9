/**
 * The shape of an op (design.md, "Where an op lives"): its name, who may call it, and its handler.
 * Args and results are the schema set's (sdk/ts/protocol/ops/<op>.ts); auth never lives in a
 * handler, and a handler checks what it was given and calls the core, which holds the rules.
 */
import {
  type OpArgs,
  type OpName,
  type OpResult,
  type PushEvent,
  RoostError,
  type TerminalEvent,
} from "../../sdk/ts/protocol/index.js";
import type { Core } from "../core/core.js";
import type { Actor } from "../core/feed.js";
import type { AgentConnection } from "../core/jobs/agents.js";

/**
 * `hub`: a connection that has not identified as a session (the CLI, a hub); `session`: one that
 * has; `concierge`: the concierge's job's, a session that may also use the ops allowing it.
 * An op that allows `session` allows the concierge too.
 */
export type Side = "hub" | "session" | "concierge";

export interface Caller {
  /** The socket connection's state (null over HTTP: it is never a session). */
  conn: AgentConnection | null;
  /** The named HTTP token it came with (null: the owner's token, or the socket). */
  tokenName?: string | null;
  actor: Actor;
  /** A read-only token: may look, never act. */
  readOnly: boolean;
  /** Came by an HTTP `GET`: may look, never act (a GET is not checked for its Origin). */
  looking?: boolean;
  /** False once the token it came with is revoked (a long-lived caller: a WebSocket). */
  holds?: () => boolean;
  /** How pushes reach this caller, and how it says it went away (for `subscribe`). */
  push?: (event: PushEvent | TerminalEvent) => void;
  onClose?: (cleanup: () => void) => void;
}

export interface OpDef<K extends OpName> {
  name: K;
  allow: readonly Side[];
  /**
   * Changes something: refused for a read-only caller, and over a `GET`. An op that only looks with
   * some args says which (`looks`): its args are checked first.
   */
  acts: boolean | ((args: OpArgs<K>) => boolean);
  /** For an op that acts by its args: what of it only looks, for the refusals to say. */
  looks?: string;
  /** Only on the unix socket (the owner's alone): the agent protocol, and minting HTTP tokens. */
  socketOnly?: true;
  /** Needs a connection that stays open for its pushes (the socket, or a WebSocket over HTTP). */
  stream?: true;
  /**
   * A hub's op about one job (`args.id`) that, when the id is another daemon's (`NAME:ID`), is sent
   * on to that remote (docs/fleet.md): the remotes' client takes the list of them from here.
   */
  relayed?: true;
  handler: (core: Core, args: OpArgs<K>, caller: Caller) => OpResult<K> | Promise<OpResult<K>>;
}

export const defineOp = <K extends OpName>(def: OpDef<K>): OpDef<K> => def;

/** The caller's socket connection, for the agent's ops (`hello`, `report`): never over HTTP. */
export function socketConnection(caller: Caller): AgentConnection {
  if (!caller.conn) throw new RoostError("unsupported", "this op is for an agent's socket connection");
  return caller.conn;
}

/** A caller that stays open: what runOp has checked a `stream` op's caller to be. */
export type StreamCaller = Caller & Required<Pick<Caller, "push" | "onClose">>;

export const streamOf = (caller: Caller): StreamCaller => caller as StreamCaller;
