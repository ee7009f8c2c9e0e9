/** The HTTP face's answers: roost's shape (`{ok, result}` or `{ok, error, code}`), the status from the code. */
import type { FastifyReply } from "fastify";
import { ERROR_CODES, type ErrorCode } from "../../sdk/ts/protocol/index.js";
import { encoded } from "../core/encoded.js";
import { answerOf, type OpOutcome } from "../ops/index.js";

export function sendOutcome(reply: FastifyReply, outcome: OpOutcome): FastifyReply {
  // As the socket writes it: the parts many answers share are encoded once (encoded.ts); ended
  // with a newline, as app.ts's reply serializer ends every other answer.
  if (outcome.ok)
    return reply
      .code(200)
      .type("application/json; charset=utf-8")
      .send(`${encoded(answerOf(outcome))}\n`);
  return sendError(reply, outcome.code, outcome.error);
}

export function sendError(reply: FastifyReply, code: ErrorCode, error: string): FastifyReply {
  if (code === "unauthorized") reply.header("www-authenticate", 'Bearer realm="roost"');
  return reply.code(ERROR_CODES[code].status).send({ ok: false, error, code });
}

/** Fastify's own refusals (a body too large, not JSON, no such route) in roost's shape. */
export function codeForStatus(status: number): ErrorCode {
  if (status === 413) return "limit";
  if (status === 404) return "not_found";
  if (status === 401) return "unauthorized";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "busy";
  return "bad_request";
}
