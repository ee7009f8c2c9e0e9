/**
 * Who is asking (design.md, "The parts"): the one builder of a `Caller`, for each face that
 * calls `runOp`: a socket connection (bridge/connection.ts), an HTTP request and a WebSocket
 * (http/routes.ts, http/websockets.ts). Every caller is the user; what differs is what it came by.
 */

import { USER } from "../core/feed.js";
import type { AgentConnection } from "../core/jobs/agents.js";
import type { Identity, Tokens } from "../core/tokens.js";
import type { Caller } from "../ops/define.js";

export interface CallerParts {
  /** The socket connection's state: only the socket's callers may become a session. */
  conn?: AgentConnection;
  /**
   * The HTTP token it came with, and the tokens that say whether it still holds (the socket has
   * none: it is the owner's). Read-only as the token is.
   */
  token?: { identity: Identity; tokens: Pick<Tokens, "holds"> };
  /** How pushes reach it, and how it says it went away: a connection that stays open. */
  push?: Caller["push"];
  onClose?: Caller["onClose"];
  /** An HTTP GET: it may only look. */
  looking?: boolean;
}

export function callerOf(parts: CallerParts): Caller {
  const { conn = null, token, push, onClose, looking } = parts;
  const caller: Caller = {
    conn,
    actor: USER,
    readOnly: token?.identity.readOnly ?? false,
    tokenName: token?.identity.name ?? null,
  };
  if (token) caller.holds = () => token.tokens.holds(token.identity);
  if (push) caller.push = push;
  if (onClose) caller.onClose = onClose;
  if (looking) caller.looking = true;
  return caller;
}
