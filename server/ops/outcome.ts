import type { ErrorCode } from "../../sdk/ts/protocol/index.js";

/** What running an op gives, whichever face asked (the socket, HTTP, a WebSocket): one of the wire's codes. */
export type OpOutcome = { ok: true; result: unknown } | { ok: false; code: ErrorCode; error: string };

/** An outcome as every face writes it: `{ok, result}` or `{ok, error, code}` (the socket adds its id). */
export const answerOf = (o: OpOutcome) =>
  o.ok ? { ok: true as const, result: o.result } : { ok: false as const, error: o.error, code: o.code };
