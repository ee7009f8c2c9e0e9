/**
 * A job's conversation (docs/protocol.md, "The conversation"): its agent appends entries on a
 * connection that speaks for the job (its own, or a tool's after `speak_for`: a terminal agent's
 * hook feeds it so); a hub reads them, and hears of new ones by the `conversation` push. The
 * entries are kept in the job's directory by the store (server/store/conversations.ts), so they
 * outlive the daemon and the job, and go with `rm`.
 */
import {
  ENTRY_NEEDS,
  type Entry,
  LIMITS,
  type OpArgs,
  type OpResult,
  RoostError,
} from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import { type AgentConnection, authorize } from "./agents.js";
import { isEnded } from "./lifecycle.js";

/** Each entry carries what its kind is about (a tool entry its tool …), else `bad_request` naming it. */
function checkEntries(entries: readonly Entry[]): void {
  entries.forEach((e, i) => {
    const needs = ENTRY_NEEDS[e.kind];
    if (e[needs] === undefined)
      throw new RoostError(
        "bad_request",
        `conversation-append.entries[${i}] is a ${e.kind} entry without its ${needs}: give ${needs}`,
      );
  });
}

export function appendEntries(
  core: Core,
  conn: AgentConnection,
  args: OpArgs<"conversation-append">,
): OpResult<"conversation-append"> {
  const job = authorize(core, conn, args.id, args.token);
  if (isEnded(job)) throw new RoostError("unauthorized", `${args.id} has ended: stop speaking for it`);
  checkEntries(args.entries);
  const appended = core.store.conversations.append(job.rec.id, args.entries, args.requestId, Date.now());
  if (!appended.duplicate) core.pushes.conversation(job.rec.id, appended.last);
  return appended;
}

export function readEntries(core: Core, args: OpArgs<"conversation">): OpResult<"conversation"> {
  const job = core.registry.get(args.id); // not_found for no such job
  const limit = args.limit ?? LIMITS.entriesRead / 2;
  return { id: job.rec.id, ...core.store.conversations.read(job.rec.id, args.after, limit) };
}
