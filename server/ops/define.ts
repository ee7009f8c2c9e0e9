/**
 * The shape of an op (design.md, "One op table"): its name, who may call it, and its handler.
 * Args and results are the schema set's (sdk/ts/protocol/ops.ts); auth never lives in a handler.
 */
import type { OpArgs, OpName, OpResult, PushEvent, TerminalEvent } from "../../sdk/ts/protocol/index.js";
import type { AgentConnection } from "../core/agents.js";
import type { Core } from "../core/core.js";
import type { Actor } from "../core/feed.js";

/** `hub`: a connection that has not identified as a session (the CLI, a hub); `session`: one that has. */
export type Side = "hub" | "session";

export interface Caller {
  /** The socket connection's state (null over HTTP: it is never a session). */
  conn: AgentConnection | null;
  /** The named HTTP token it came with (null: the owner's token, or the socket). */
  tokenName?: string | null;
  actor: Actor;
  /** A read-only token: may look, never act. */
  readOnly: boolean;
  /** False once the token it came with is revoked (a long-lived caller: a WebSocket). */
  holds?: () => boolean;
  /** How pushes reach this caller, and how it says it went away (for `subscribe`). */
  push?: (event: PushEvent | TerminalEvent) => void;
  onClose?: (cleanup: () => void) => void;
}

export interface OpDef<K extends OpName> {
  name: K;
  allow: readonly Side[];
  /** Changes something: refused for a read-only caller. */
  acts: boolean;
  /** Only on the unix socket (the owner's alone): the agent protocol, and minting HTTP tokens. */
  socketOnly?: true;
  /** Needs a connection that stays open for its pushes (the socket, or a WebSocket over HTTP). */
  stream?: true;
  handler: (core: Core, args: OpArgs<K>, caller: Caller) => OpResult<K> | Promise<OpResult<K>>;
}

export const defineOp = <K extends OpName>(def: OpDef<K>): OpDef<K> => def;
