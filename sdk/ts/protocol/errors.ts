/**
 * The wire's error codes (protocol.md, "Error codes"; http.md, "Answers"): one code for one
 * condition, the same on every face. One list: the daemon's error type, the HTTP status map, the
 * OpenAPI and the TypeScript SDK read it; a test holds docs/protocol.md, docs/http.md and the
 * Python client's `ERROR_CODES` to it.
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
  conflict: { status: 409, meaning: "someone else holds it: a token's name in use" },
  blocked: { status: 409, meaning: "it waits on something not yet done" },
  locked: { status: 423, meaning: "it is being changed by another request" },
  limit: { status: 413, meaning: "the request is over 4 MiB (a line on the socket, an HTTP body): not read" },
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
