/**
 * The op table: every op the daemon answers, on the socket and over HTTP. `runOp` is the
 * only path in: look up, check who may call, validate the args (compiled once), run, wrap.
 */
import { OPS, type OpName, RoostError } from "../../sdk/ts/protocol/index.js";
import type { Core } from "../core/core.js";
import { compileCheck } from "../validate.js";
import { ackOp } from "./ack.js";
import { attachOp } from "./attach.js";
import { budgetOp } from "./budget.js";
import { changesOp } from "./changes.js";
import { conciergeOp } from "./concierge.js";
import { conciergeActOp } from "./concierge-act.js";
import { conciergeAskOp } from "./concierge-ask.js";
import { conciergeOrderOp } from "./concierge-order.js";
import { conciergePolicyOp } from "./concierge-policy.js";
import { conciergeReplyOp } from "./concierge-reply.js";
import { conciergeSayOp } from "./concierge-say.js";
import { conciergeSuggestOp } from "./concierge-suggest.js";
import { conversationOp } from "./conversation.js";
import { conversationAppendOp } from "./conversation-append.js";
import type { Caller, OpDef, Side } from "./define.js";
import { detachOp } from "./detach.js";
import { dispatchOp } from "./dispatch.js";
import { eventsOp } from "./events.js";
import { handbackOp } from "./handback.js";
import { helloOp } from "./hello.js";
import { hookOp } from "./hook.js";
import { inputOp } from "./input.js";
import { listOp } from "./list.js";
import { mergeOp } from "./merge.js";
import { notifyTestOp } from "./notify-test.js";
import { type OpOutcome, outcomeOfThrown } from "./outcome.js";
import { peer_registerOp } from "./peer_register.js";
import { peersOp } from "./peers.js";
import { pendingOp } from "./pending.js";
import { pinOp } from "./pin.js";
import { profilesOp } from "./profiles.js";
import { queueOp } from "./queue.js";
import { queueAddOp } from "./queue-add.js";
import { queueCancelOp } from "./queue-cancel.js";
import { remotesReloadOp } from "./remotes-reload.js";
import { renameOp } from "./rename.js";
import { reorderOp } from "./reorder.js";
import { replyOp } from "./reply.js";
import { reportOp } from "./report.js";
import { resizeOp } from "./resize.js";
import { respawnOp } from "./respawn.js";
import { rmOp } from "./rm.js";
import { scheduleAddOp } from "./schedule-add.js";
import { schedulePauseOp } from "./schedule-pause.js";
import { scheduleRmOp } from "./schedule-rm.js";
import { scheduleRunOp } from "./schedule-run.js";
import { scheduleWhenOp } from "./schedule-when.js";
import { schedulesOp } from "./schedules.js";
import { sendOp } from "./send.js";
import { shutdownOp } from "./shutdown.js";
import { spawnOp } from "./spawn.js";
import { speak_forOp } from "./speak_for.js";
import { spendOp } from "./spend.js";
import { stopOp } from "./stop.js";
import { subscribeOp } from "./subscribe.js";
import { taskOp } from "./task.js";
import { tokenOp } from "./token.js";
import { watchOp } from "./watch.js";
import { whoamiOp } from "./whoami.js";

const SOCKET_ONLY_WHY = "the agent protocol, HTTP tokens and the remotes' tokens are for the owner's socket";
const STREAM_ROUTES = "GET /api/subscribe, or GET /api/jobs/ID/terminal to attach";

type AnyOp = OpDef<OpName> & { check: ReturnType<typeof compileCheck> };

export { answerOf, type OpOutcome } from "./outcome.js";

/**
 * Every op, each in its file `./<op>.ts` (design.md, "Where an op lives"), by family. An unknown
 * op's answer lists them in this order.
 */
const defs = [
  // the agent's, on its job's connection
  helloOp,
  reportOp,
  ackOp,
  hookOp,
  conversationAppendOp,
  // the peers', on a session's own connection
  peersOp,
  sendOp,
  spawnOp,
  handbackOp,
  watchOp,
  peer_registerOp,
  speak_forOp,
  // the task board, the hub's and every session's
  taskOp,
  // the concierge: the hub's switch and words, its own ops, the standing orders
  conciergeOp,
  conciergeAskOp,
  conciergeSayOp,
  conciergeSuggestOp,
  conciergePolicyOp,
  conciergeReplyOp,
  conciergeActOp,
  conciergeOrderOp,
  // the jobs'
  listOp,
  dispatchOp,
  stopOp,
  rmOp,
  respawnOp,
  pinOp,
  renameOp,
  reorderOp,
  // a job's worktree: its changes, and landing them
  changesOp,
  mergeOp,
  // the replies'
  replyOp,
  pendingOp,
  // a job's conversation, as its agent said it
  conversationOp,
  // following the daemon
  subscribeOp,
  eventsOp,
  shutdownOp,
  // a job's terminal
  attachOp,
  detachOp,
  inputOp,
  resizeOp,
  // schedules
  schedulesOp,
  scheduleAddOp,
  scheduleRmOp,
  schedulePauseOp,
  scheduleRunOp,
  scheduleWhenOp,
  // the hub's pages, the HTTP tokens, and the remotes
  profilesOp,
  whoamiOp,
  tokenOp,
  remotesReloadOp,
  notifyTestOp,
  // the merge queue
  queueAddOp,
  queueOp,
  queueCancelOp,
  // budgets
  budgetOp,
  spendOp,
] as unknown as OpDef<OpName>[];

// Every op of the schema set has its handler, and no handler is without its schema.
const missing = Object.keys(OPS).filter((name) => !defs.some((d) => d.name === name));
if (missing.length > 0 || defs.length !== Object.keys(OPS).length) {
  throw new Error(`the op table and the schema set differ: ${missing.join(", ") || "a duplicate op"}`);
}

export const OP_TABLE: ReadonlyMap<string, AnyOp> = new Map(
  defs.map((def) => [def.name, { ...def, check: compileCheck(OPS[def.name].args, "") }]),
);

/** The ops a hub's call sends on to a remote when it names another daemon's job (`relayed`). */
export const RELAYED_OPS: readonly OpName[] = defs.filter((def) => def.relayed).map((def) => def.name);

/** Runs one op for one caller. Never throws: every failure is an outcome with the wire's code. */
export function runOp(
  core: Core,
  caller: Caller,
  name: string,
  args: unknown,
): OpOutcome | Promise<OpOutcome> {
  // Every failure's words pass the daemon's redaction on their way out (outcome.ts).
  const failed = (err: unknown) => outcomeOfThrown(err, (text) => core.secrets.redact(text));
  try {
    const op = OP_TABLE.get(name);
    if (!op)
      throw new RoostError(
        "bad_request",
        `unknown op ${JSON.stringify(name)}; the ops are: ${[...OP_TABLE.keys()].join(", ")}`,
      );
    if (caller.holds && !caller.holds())
      throw new RoostError("unauthorized", "this connection's token was revoked: log in again");
    const side = sideOf(core, caller);
    if (!op.allow.includes(side) && !(side === "concierge" && op.allow.includes("session")))
      throw new RoostError("unsupported", refusal(name, op.allow, side, caller.conn?.boundTo ?? null));
    if (op.socketOnly && !caller.conn)
      throw new RoostError("unsupported", `${name} is only on the unix socket (${SOCKET_ONLY_WHY})`);
    if (op.acts === true) mayAct(name, caller);
    if (op.stream && !(caller.push && caller.onClose))
      throw new RoostError(
        "unsupported",
        `${name} needs a connection that stays open: over HTTP, open a WebSocket (${STREAM_ROUTES})`,
      );
    const checked = op.check(args ?? {});
    if (!checked.ok) throw new RoostError("bad_request", `${name}: ${checked.message}`);
    if (typeof op.acts === "function" && op.acts(checked.value as never)) mayAct(name, caller, op.looks);
    // A hub's op about another daemon's job (`name:id`) goes to it (server/fleet/), as checked here.
    const routed =
      side === "hub" && op.relayed
        ? core.remotes.route(caller, name, checked.value as Record<string, unknown>)
        : null;
    if (routed) return routed.then(success, failed);
    const result = op.handler(core, checked.value as never, caller);
    return result instanceof Promise ? result.then(success, failed) : success(result);
  } catch (err) {
    return failed(err);
  }
}

const success = (result: unknown): OpOutcome => ({ ok: true, result });

/**
 * Which side the caller is on: a hub, a session, or the concierge's job (after its report). A
 * connection on a sandboxed job's own socket is its job's from the start, never a hub's.
 */
function sideOf(core: Core, caller: Caller): Side {
  const bound = caller.conn?.boundTo ?? null;
  if (!caller.conn?.session && bound === null) return "hub";
  const jobId = bound ?? caller.conn!.jobId;
  return jobId !== null && core.registry.find(jobId)?.rec.role === "concierge" ? "concierge" : "session";
}

/** Why `side` may not call `name`, and where it may. */
function refusal(name: string, allow: readonly Side[], side: Side, bound: string | null): string {
  if (bound !== null)
    return `${name} is refused on ${bound}'s own socket (its sandbox's): it takes that job's agent and peer ops, and no hub op`;
  if (side === "hub")
    return allow.includes("session")
      ? `${name} is a session's op, on an agent's own connection after its report: the user talks to a session with reply`
      : `${name} is the concierge's op, on its own job's connection after its report: the hub has concierge and concierge-ask`;
  if (allow.includes("hub"))
    return `${name} is a hub op${allow.includes("concierge") ? " (and the concierge's)" : ""}, refused on a connection that identified as a session: open a connection of your own`;
  return `${name} is the concierge's op, refused on another session's connection: message the concierge with send`;
}

/** An act: refused to a read-only token, and over a GET (`looks`: what of the op may be a GET). */
function mayAct(name: string, caller: Caller, looks?: string): void {
  const only = looks ? ` (only ${looks} looks)` : "";
  if (caller.readOnly)
    throw new RoostError(
      "policy",
      `${name} acts${only}, and this token is read-only: it may look, never act`,
    );
  if (caller.looking)
    throw new RoostError(
      "unsupported",
      `${name} acts${only}: POST /api/${name}, with its args as a JSON body`,
    );
}
