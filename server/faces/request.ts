/**
 * The one check of a request's shape, before its op sees it: a socket line, a terminal
 * WebSocket's message, an HTTP body. A request is `{"id": n, "op": "name", "args": {...}}`
 * (docs/protocol.md, "The socket"; `RequestEnvelope` in the schema set); the op's own args are
 * checked by `runOp` against its schema.
 *
 * Read leniently where the wire says to answer rather than refuse: an id that cannot be one
 * (not a number, or a string over 200 characters) is answered as null; an op that is no op's
 * name is `runOp`'s to refuse, naming the ops.
 */
export type RequestId = number | string | null;

export interface Request {
  id: RequestId;
  op: string;
  /** Absent: the op's args are `{}`. */
  args: Record<string, unknown> | undefined;
}

/** Why a request was not read: not JSON, not a request's shape, or args that are not an object. */
export type Unread = { ok: false; id: RequestId; why: "json" | "shape" | "args"; error: string };

/** A JSON object: what an op's args are, and what a request is. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A line (or a message) as a request, or why it is not one. */
export function readRequest(text: string): { ok: true; request: Request } | Unread {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (err) {
    return { ok: false, id: null, why: "json", error: `not JSON: ${(err as Error).message}` };
  }
  const id = isObject(msg) ? idOf(msg.id) : null;
  if (!isObject(msg) || typeof msg.op !== "string")
    return { ok: false, id, why: "shape", error: 'a request is {"id": n, "op": "name", "args": {...}}' };
  if (msg.args !== undefined && !isObject(msg.args))
    return { ok: false, id, why: "args", error: "args must be an object" };
  return { ok: true, request: { id, op: msg.op, args: msg.args } };
}

function idOf(id: unknown): RequestId {
  return typeof id === "number" || (typeof id === "string" && id.length <= 200) ? id : null;
}
