/**
 * A job's report changes, whoever said it (the agent's report, or its screen for a terminal
 * agent): the row is pushed, and a change of state that matters goes into the events feed.
 */
import type { FullReport } from "../../sdk/ts/protocol/index.js";
import type { Core } from "./core.js";
import type { LiveJob } from "./registry.js";
import { excerpt } from "./text.js";

const MEANINGFUL_STATES: ReadonlySet<string> = new Set(["blocked", "done", "failed"]);

export function setReport(core: Core, job: LiveJob, next: FullReport): void {
  const previous = job.rec.report;
  job.rec.report = next;
  core.registry.changed(job, false);
  core.peers.watches.changed(job.rec.id);
  const stateChanged =
    previous?.state !== next.state || (next.state === "blocked" && previous?.question !== next.question);
  if (!stateChanged || !MEANINGFUL_STATES.has(next.state)) return;
  const what = next.state === "blocked" ? next.question : next.state === "failed" ? next.error : next.summary;
  core.feed.record(job.rec.id, "state", `${next.state}${what ? `: ${excerpt(what)}` : ""}`, {
    who: core.registry.row(job).name,
    whoId: job.rec.id,
  });
}
