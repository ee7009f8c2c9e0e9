import { type ErrorCode, isErrorCode, RoostError } from "../../sdk/ts/protocol/index.js";
import { hideForms } from "../secrets.js";

/** What running an op gives, whichever face asked (the socket, HTTP, a WebSocket): one of the wire's codes. */
export type OpOutcome = { ok: true; result: unknown } | { ok: false; code: ErrorCode; error: string };

/** An outcome as every face writes it: `{ok, result}` or `{ok, error, code}` (the socket adds its id). */
export const answerOf = (o: OpOutcome) =>
  o.ok ? { ok: true as const, result: o.result } : { ok: false as const, error: o.error, code: o.code };

/**
 * The one answer to an exception, wherever it was thrown (an op, the socket, HTTP): a RoostError
 * says its code; anything else is a bug, not the caller's fault, said plainly, logged, and the
 * daemon goes on. What it says passes `redact` (secrets.ts): an error may quote what it failed on,
 * a url or a connection string with its password, and a read-only token reads it. `runOp` gives
 * the daemon's redaction (roost.json's secrets by value too); elsewhere, every form a secret takes.
 */
export function outcomeOfThrown(err: unknown, redact: (text: string) => string = hideForms): OpOutcome {
  if (err instanceof RoostError && isErrorCode(err.code))
    return { ok: false, code: err.code, error: redact(err.message) };
  console.error("roost: op failed:", err);
  return {
    ok: false,
    code: "busy",
    error: redact(`roost could not do this: ${(err as Error)?.message ?? err} (see daemon.log)`),
  };
}
