/** What running an op gives, whichever face asked (the socket, HTTP, a WebSocket). */
export type OpOutcome = { ok: true; result: unknown } | { ok: false; code: string; error: string };

/** An outcome as every face writes it: `{ok, result}` or `{ok, error, code}` (the socket adds its id). */
export const answerOf = (o: OpOutcome) =>
  o.ok ? { ok: true as const, result: o.result } : { ok: false as const, error: o.error, code: o.code };
