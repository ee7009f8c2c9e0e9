/**
 * The op table: every op the daemon answers, on the socket and (later) over HTTP. `runOp` is the
 * only path in: look up, check who may call, validate the args (compiled once), run, wrap.
 */
import { isErrorCode, OPS, type OpName, RoostError } from "../../sdk/ts/protocol/index.js";
import type { Core } from "../core/core.js";
import { compileCheck } from "../validate.js";
import { agentOps } from "./agent.js";
import { daemonOps } from "./daemon.js";
import type { Caller, OpDef } from "./define.js";
import { jobOps } from "./jobs.js";
import { replyOps } from "./replies.js";
import { terminalOps } from "./terminal.js";

type AnyOp = OpDef<OpName> & { check: ReturnType<typeof compileCheck> };

const defs = [
  ...agentOps,
  ...jobOps,
  ...replyOps,
  ...daemonOps,
  ...terminalOps,
] as unknown as OpDef<OpName>[];

// Every op of the schema set has its handler, and no handler is without its schema.
const missing = Object.keys(OPS).filter((name) => !defs.some((d) => d.name === name));
if (missing.length > 0 || defs.length !== Object.keys(OPS).length) {
  throw new Error(`the op table and the schema set differ: ${missing.join(", ") || "a duplicate op"}`);
}

export const OP_TABLE: ReadonlyMap<string, AnyOp> = new Map(
  defs.map((def) => [def.name, { ...def, check: compileCheck(OPS[def.name].args, "") }]),
);

export type OpOutcome = { ok: true; result: unknown } | { ok: false; code: string; error: string };

/** Runs one op for one caller. Never throws: every failure is an outcome with the wire's code. */
export function runOp(
  core: Core,
  caller: Caller,
  name: string,
  args: unknown,
): OpOutcome | Promise<OpOutcome> {
  try {
    const op = OP_TABLE.get(name);
    if (!op)
      throw new RoostError(
        "bad_request",
        `unknown op ${JSON.stringify(name)}; the ops are: ${[...OP_TABLE.keys()].join(", ")}`,
      );
    const side = caller.conn?.session ? "session" : "hub";
    if (!op.allow.includes(side)) {
      throw new RoostError(
        "unsupported",
        `${name} is a hub op, refused on a connection that identified as a session: open a connection of your own`,
      );
    }
    if (op.acts && caller.readOnly)
      throw new RoostError("unauthorized", `${name} acts; this token may only look`);
    const checked = op.check(args ?? {});
    if (!checked.ok) throw new RoostError("bad_request", `${name}: ${checked.message}`);
    const result = op.handler(core, checked.value as never, caller);
    return result instanceof Promise ? result.then(success, failure) : success(result);
  } catch (err) {
    return failure(err);
  }
}

const success = (result: unknown): OpOutcome => ({ ok: true, result });

function failure(err: unknown): OpOutcome {
  if (err instanceof RoostError && isErrorCode(err.code))
    return { ok: false, code: err.code, error: err.message };
  // A bug, not the caller's fault: said plainly, logged, and the daemon goes on.
  console.error("roost: op failed:", err);
  return {
    ok: false,
    code: "busy",
    error: `roost could not do this: ${(err as Error)?.message ?? err} (see daemon.log)`,
  };
}
