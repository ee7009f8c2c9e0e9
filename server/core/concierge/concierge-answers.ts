/**
 * What the concierge may do to the sessions (docs/protocol.md, "The concierge"), on its own connection: suggest
 * an answer to a row that waits (`suggested` on the row), answer a question in the user's place
 * when the policy allows (`concierge-reply`; the user's `undo` withdraws the last one), and stop,
 * respawn or dispatch when the policy's `act` allows (`concierge-act`). Each is in the feed with
 * `who: "concierge"` (its job's name) and `whoId` its job.
 */
import {
  type ConciergeAnswer,
  type OpArgs,
  type OpResult,
  RoostError,
} from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { Actor } from "../feed.js";
import type { AgentConnection, LiveJob } from "../jobs/index.js";
import { dispatch, mustStillAsk, reply, respawn, stop } from "../jobs/index.js";
import { actorOf, mustReadMessages, sessionNamed, sessionOf } from "../peers/index.js";
import { excerpt } from "../text.js";

/** The concierge's job, on its own connection (runOp has let only the concierge's through). */
export function conciergeOf(core: Core, conn: AgentConnection): LiveJob {
  return sessionOf(core, conn, "the concierge's ops are on its job's connection, after its report");
}

/** Another session than the concierge itself, by id or by a name one live session has. */
function other(core: Core, concierge: LiveJob, id: string, what: string): LiveJob {
  const job = sessionNamed(core, id);
  if (job === concierge) throw new RoostError("bad_request", `the concierge cannot ${what} itself`);
  return job;
}

/** `concierge-suggest`: the row carries the answer until it moves on (a reply, a new state or question). */
export function suggest(
  core: Core,
  concierge: LiveJob,
  args: OpArgs<"concierge-suggest">,
): OpResult<"concierge-suggest"> {
  const job = other(core, concierge, args.id, "suggest an answer to");
  mustStillAsk(job, args.ifAsked);
  const state = core.registry.row(job).view;
  if (state !== "blocked" && state !== "your turn")
    throw new RoostError(
      "bad_request",
      `${job.rec.id} does not wait for an answer (it is ${state}): suggest one to a session that is blocked or whose turn it is`,
    );
  const why = args.why?.trim() ?? "";
  job.suggested = { text: args.text, why, at: new Date().toISOString() };
  core.registry.changed(job, false);
  core.feed.record(job.rec.id, "concierge", excerpt(args.text), actorOf(core, concierge), "suggest");
  return { row: core.registry.row(job) };
}

/** `concierge-reply`: an answer in the user's place, a `reply` by the concierge; the status's `answered`. */
export async function answer(
  core: Core,
  concierge: LiveJob,
  args: OpArgs<"concierge-reply">,
): Promise<OpResult<"concierge-reply">> {
  const policy = core.concierge.policy.answer;
  if (policy === "never")
    throw new RoostError(
      "policy",
      "the user's policy is answer: never: the concierge suggests (concierge-suggest) and does not answer in the user's place",
    );
  const job = other(core, concierge, args.id, "answer");
  // In the user's place, yet not the user's words: never typed into a shell or a plain program.
  mustReadMessages(job, "the concierge's answer");
  const row = core.registry.row(job);
  if (row.state !== "blocked" || row.life !== "running")
    throw new RoostError(
      "bad_request",
      `${job.rec.id} does not wait for a question (it is ${row.view}): the concierge answers only a question a session waits on; suggest instead`,
    );
  // A dialog (a permission to grant) or a first prompt is the user's to answer, whatever the
  // policy: only a question the agent asked (`waitingFor: "question"`) may be answered in their place.
  if (row.waitingFor !== "question")
    throw new RoostError(
      "bad_request",
      `${job.rec.id} waits for ${row.waitingFor === null ? "something it did not name" : `a ${row.waitingFor}`} (waitingFor: ${row.waitingFor ?? "null"}), not a question: only the user answers that; the concierge answers only waitingFor "question" (suggest instead)`,
    );
  const why = args.why?.trim() || `answered by the concierge (policy: ${policy})`;
  const r = await reply(
    core,
    { id: job.rec.id, text: args.text, ifAsked: args.ifAsked },
    actorOf(core, concierge),
    why,
    { why },
  );
  const answered: ConciergeAnswer = {
    id: job.rec.id,
    name: row.name,
    seq: r.seq ?? job.rec.lastSeq,
    question: row.question,
    text: args.text,
    why,
    at: new Date().toISOString(),
    undone: false,
  };
  core.concierge.setAnswered(answered);
  return { answered };
}

/**
 * `concierge {action: "undo"}`: the last answer withdrawn. What was said cannot be unsaid: the
 * session is steered (or, an agent without steer, replied to) to disregard it and wait for the
 * user's own answer.
 */
export async function undo(core: Core, actor: Actor): Promise<ConciergeAnswer> {
  const last = core.concierge.answered;
  if (!last || last.undone)
    throw new RoostError("bad_request", "there is no answer of the concierge's to undo");
  const job = core.registry.find(last.id);
  if (!job) throw new RoostError("not_found", `${last.id}, which the concierge answered, was removed`);
  const text = `[roost: the user withdrew the answer the concierge gave in their place: "${excerpt(last.text, 200)}". Disregard it, and undo what you did on it if you can; the user will answer${last.question ? ` "${excerpt(last.question, 200)}"` : ""} themselves.]`;
  await reply(core, { id: last.id, text, mode: "steer" }, actor, "undo");
  const undone = { ...last, undone: true };
  core.feed.record(last.id, "concierge", `undone: ${excerpt(last.text)}`, actor, "undo");
  core.concierge.setAnswered(undone);
  return undone;
}

/** `concierge-act`: stop, respawn or dispatch, when the policy's `act` allows. */
export async function act(
  core: Core,
  concierge: LiveJob,
  args: OpArgs<"concierge-act">,
): Promise<OpResult<"concierge-act">> {
  core.concierge.mayAct(concierge, "stop, respawn or dispatch");
  const actor = actorOf(core, concierge);
  if (args.what === "dispatch") {
    if (!args.launch)
      throw new RoostError("bad_request", "dispatch needs a launch: {profile, task?, name?, cwd?}");
    const { job } = await dispatch(core, args.launch, actor);
    return { job };
  }
  if (args.id === undefined) throw new RoostError("bad_request", `${args.what} needs the session's id`);
  const job = other(core, concierge, args.id, args.what);
  if (args.what === "stop") {
    await stop(core, job, actor);
    return { id: job.rec.id };
  }
  return { job: await respawn(core, job, actor) };
}
