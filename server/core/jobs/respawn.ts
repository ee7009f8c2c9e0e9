/**
 * `respawn` (protocol.md, "roost's choices"): the job started again under the same id (its life's
 * change is start.ts's); a terminal job's task is typed again, as the program that took it the
 * first time is gone: a new reply, saved and typed as any other (reply.ts, typist.ts).
 */
import type { Row } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { Actor } from "../feed.js";
import type { LiveJob } from "./registry.js";
import { reply } from "./reply.js";
import { respawn as startAgain } from "./start.js";

export async function respawn(core: Core, job: LiveJob, actor: Actor): Promise<Row> {
  core.budgets.respawning(job); // one stopped for its budget goes on: the budgets spent no longer stop it today
  await startAgain(core, job, actor);
  const { launch, life } = job.rec;
  // A protocol agent keeps what it has done (agent.json) and gets its pending replies; an `argv`
  // task is in its command already.
  if (launch.taskText !== undefined && !launch.protocol && life === "running") {
    await reply(core, { id: job.rec.id, text: launch.taskText }, actor);
  }
  return core.registry.row(job);
}
