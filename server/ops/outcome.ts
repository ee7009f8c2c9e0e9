import { type ErrorCode, isErrorCode, RoostError } from "../../sdk/ts/protocol/index.js";

/** What running an op gives, whichever face asked (the socket, HTTP, a WebSocket): one of the wire's codes. */
export type OpOutcome = { ok: true; result: unknown } | { ok: false; code: ErrorCode; error: string };

/** An outcome as every face writes it: `{ok, result}` or `{ok, error, code}` (the socket adds its id). */
export const answerOf = (o: OpOutcome) =>
  o.ok ? { ok: true as const, result: o.result } : { ok: false as const, error: o.error, code: o.code };

/**
 * The one answer to an exception, wherever it was thrown (an op, the socket, HTTP): a RoostError
 * says its code; anything else is a bug, not the caller's fault, said plainly, logged, and the
 * daemon goes on.
 */
export function outcomeOfThrown(err: unknown): OpOutcome {
  if (err instanceof RoostError && isErrorCode(err.code))
    return { ok: false, code: err.code, error: err.message };
  console.error("roost: op failed:", err);
  return {
    ok: false,
    code: "busy",
    error: `roost could not do this: ${(err as Error)?.message ?? err} (see daemon.log)`,
  };
}
