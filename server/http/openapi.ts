/** `GET /api/openapi.json`: the HTTP face described from the schema set itself (sdk/ts/protocol). */
import type { TSchema } from "typebox";
import { ERROR_CODES, OPS, type OpName } from "../../sdk/ts/protocol/index.js";
import { ROOST_VERSION } from "../version.js";

export interface RoutedOp {
  name: OpName;
  get: boolean;
  acts: boolean;
  /** An op that acts by its args: what of it only looks (and may be a GET). */
  looks?: string;
  /** Needs pushes: described by its WebSocket, not as a POST (which only says where that is). */
  stream: boolean;
}

const errorBody = {
  type: "object",
  required: ["ok", "error", "code"],
  properties: {
    ok: { const: false },
    error: { type: "string" },
    code: { enum: Object.keys(ERROR_CODES) },
  },
};

const okBody = (result: TSchema) => ({
  type: "object",
  required: ["ok", "result"],
  properties: { ok: { const: true }, result },
});

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });

function operation(op: RoutedOp, method: "get" | "post") {
  const args = OPS[op.name].args as TSchema & { properties?: Record<string, TSchema>; required?: string[] };
  const base = {
    operationId: method === "get" ? `${op.name}Get` : op.name,
    summary: `${op.name}${op.acts ? ` (acts: not for a read-only token${op.looks ? `, but for ${op.looks}` : ""})` : ""}`,
    responses: {
      "200": { description: "done", ...json(okBody(OPS[op.name].result)) },
      default: { description: "refused: the status comes from the code", ...json(errorBody) },
    },
  };
  if (method === "post") return { ...base, requestBody: { required: false, ...json(args) } };
  const parameters = Object.entries(args.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: args.required?.includes(name) ?? false,
    schema,
  }));
  return { ...base, parameters };
}

export function openApi(ops: readonly RoutedOp[]): unknown {
  const paths: Record<string, unknown> = {
    "/healthz": {
      get: {
        summary: "is the daemon up (no token needed)",
        security: [],
        responses: { "200": { description: "up" } },
      },
    },
    "/api/subscribe": {
      get: {
        summary: "WebSocket: {ok, result: {rows}}, then the pushes row, removed, feed",
        responses: { "101": { description: "switching to a WebSocket" } },
      },
    },
    "/api/jobs/{id}/terminal": {
      get: {
        summary:
          "WebSocket: a job's live terminal ({ok, result: {screen, cols, rows}}, then output events; send input and resize)",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "101": { description: "switching to a WebSocket" } },
      },
    },
  };
  for (const op of ops.filter((o) => !o.stream)) {
    paths[`/api/${op.name}`] = {
      post: operation(op, "post"),
      ...(op.get ? { get: operation(op, "get") } : {}),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "roost",
      version: ROOST_VERSION,
      description: "roost's hub ops over HTTP: see docs/http.md",
    },
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "the token in $ROOST_HOME/token, or a named one",
        },
        cookie: {
          type: "apiKey",
          in: "cookie",
          name: "roost_…",
          description: "set by the login link /login?token=",
        },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}
