/**
 * The hub's ops over HTTP, generated from the op table (docs/http.md, "Routes"):
 * `POST /api/<op>` with the args as a JSON body for every hub op, and `GET /api/<op>` with query
 * parameters for those that only look. Same schemas, results and codes as the unix socket:
 * both faces call `runOp`.
 */
import type { FastifyInstance } from "fastify";
import type { TSchema } from "typebox";
import { OPS, type OpName } from "../../sdk/ts/protocol/index.js";
import type { Core } from "../core/core.js";
import { callerOf } from "../faces/caller.js";
import { isObject } from "../faces/request.js";
import { OP_TABLE, runOp } from "../ops/index.js";
import { sendError, sendOutcome } from "./answers.js";
import { tokenOf } from "./auth.js";
import type { RoutedOp } from "./openapi.js";

/** The ops HTTP serves: the hub's, less those on the owner's socket only. */
export function routedOps(): RoutedOp[] {
  return [...OP_TABLE.values()]
    .filter((op) => op.allow.includes("hub") && !op.socketOnly)
    .map((op) => ({
      name: op.name,
      // An op that acts by its args (`task`) is a GET too, for what of it only looks.
      get: op.acts !== true && !op.stream,
      acts: op.acts !== false,
      ...(op.looks ? { looks: op.looks } : {}),
      stream: op.stream === true,
    }));
}

/**
 * One route per method, the op named in the path: an unknown op, and one on the owner's socket
 * only, get the same answers as on the socket (`bad_request`, `unsupported`) from `runOp`.
 */
export function installOpRoutes(app: FastifyInstance, core: Core, ops: readonly RoutedOp[]): void {
  // An op that acts is POST only; any other op that cannot be a GET is told why by runOp (one
  // that acts by its args, when they act).
  const postOnly = new Set(ops.filter((op) => op.acts && !op.get).map((op) => op.name as string));
  app.post<{ Params: { op: string } }>("/api/:op", async (req, reply) => {
    const args = req.body ?? {};
    if (!isObject(args))
      return sendError(reply, "bad_request", "the body must be a JSON object: the op's args");
    return sendOutcome(
      reply,
      await runOp(core, callerOf({ token: tokenOf(req, core.tokens) }), req.params.op, args),
    );
  });
  app.get<{ Params: { op: string } }>("/api/:op", async (req, reply) => {
    const name = req.params.op;
    if (postOnly.has(name))
      return sendError(reply, "unsupported", `${name} is POST /api/${name}, with its args as a JSON body`);
    const query = req.query as Record<string, unknown>;
    const args = Object.hasOwn(OPS, name) ? fromQuery(OPS[name as OpName].args, query) : {};
    const caller = callerOf({ token: tokenOf(req, core.tokens), looking: true });
    return sendOutcome(reply, await runOp(core, caller, name, args));
  });
}

/**
 * Query parameters are text: each is read as its arg's type (`?limit=5` is the integer 5). What
 * cannot be read as that type is passed as it came, so that validation says what is wrong.
 */
export function fromQuery(schema: TSchema, query: Record<string, unknown>): Record<string, unknown> {
  const props = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  const args: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const type = Object.hasOwn(props, key) ? props[key]?.type : undefined;
    if (typeof value !== "string") args[key] = value;
    else if (
      (type === "integer" || type === "number") &&
      value.trim() !== "" &&
      Number.isFinite(Number(value))
    )
      args[key] = Number(value);
    else if (type === "boolean" && (value === "true" || value === "false")) args[key] = value === "true";
    else args[key] = value;
  }
  return args;
}
