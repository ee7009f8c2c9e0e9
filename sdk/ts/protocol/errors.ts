/**
 * The wire's error codes (agent-protocol.md, "Error codes"; control-plane.md, "HTTP and WebSocket").
 * One list: the daemon's error type, the HTTP status map, the docs test and the SDKs all read it.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, meaning: "the request is malformed: the message says what to fix" },
  unauthorized: { status: 401, meaning: "wrong token: stop speaking for this job" },
  policy: {
    status: 403,
    meaning: "not allowed here: the concierge's policy, a read-only token, or an unknown Host or Origin",
  },
  not_found: { status: 404, meaning: "no such job (or other named thing)" },
  unsupported: { status: 405, meaning: "not for this kind of job or connection" },
  conflict: { status: 409, meaning: "someone else holds it" },
  blocked: { status: 409, meaning: "it waits on something not yet done" },
  locked: { status: 423, meaning: "it is being changed by another request" },
  limit: { status: 413, meaning: "too large" },
  full: { status: 429, meaning: "too many waiting (50 replies for a job)" },
  rate_limited: { status: 429, meaning: "too many in a short time" },
  busy: { status: 503, meaning: "try again shortly" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERROR_CODES, code);
}

/** The one error type: a wire code and a message that tells the caller what to fix. */
export class RoostError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "RoostError";
    this.code = code;
  }
}
