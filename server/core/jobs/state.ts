/**
 * A job's report changes, whoever said it (the agent's report, or its screen for a terminal
 * agent): the row is pushed, and a change of state that matters goes into the events feed.
 */
import { type FullReport, REPORT_FIELDS } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import { excerpt } from "../text.js";
import { reportAsked } from "./asked.js";
import type { LiveJob } from "./registry.js";

const MEANINGFUL_STATES: ReadonlySet<string> = new Set(["blocked", "done", "failed"]);

/**
 * The job's report is `next`. What changed: `"content"` (a field besides `status`: `updatedAt`
 * is stamped), `"status"` (busy, idle or waiting alone: a terminal agent's output starting and
 * stopping, which a redraw does too), or null (the same report again: nothing is pushed).
 */
export function setReport(core: Core, job: LiveJob, next: FullReport): "content" | "status" | null {
  const previous = job.rec.report;
  const change = previous ? reportChange(previous, next) : "content";
  if (change === null) return null;
  job.rec.report = next;
  reportAsked(job, previous);
  // The concierge's suggestion was for the row as it waited: a new state or question is past it.
  if (job.suggested && (previous?.state !== next.state || previous?.question !== next.question))
    job.suggested = null;
  if (change === "content") core.registry.changed(job, false);
  else core.registry.noted(job, false);
  core.peers.watches.changed(core, job.rec.id);
  core.schedules.jobChanged(job.rec.id); // a scheduled run's job at rest ends its run
  core.notify.rowChanged(() => core.registry.row(job));
  core.worktrees.changed(job);
  core.budgets.reported(job); // its usage's rise counted; a paused job that goes on is stopped
  const stateChanged =
    previous?.state !== next.state || (next.state === "blocked" && previous?.question !== next.question);
  if (!stateChanged || !MEANINGFUL_STATES.has(next.state)) return change;
  const what = next.state === "blocked" ? next.question : next.state === "failed" ? next.error : next.summary;
  // Named by the word its row shows (`view`): a `done` agent still running is "your turn" (or
  // "waiting" on its children), as the hub and `roost ls` say, not "done".
  const row = core.registry.row(job);
  core.feed.record(job.rec.id, "state", `${row.view}${what ? `: ${excerpt(what)}` : ""}`, {
    who: row.name,
    whoId: job.rec.id,
  });
  return change;
}

function reportChange(a: FullReport, b: FullReport): "content" | "status" | null {
  let status = false;
  for (const key of REPORT_FIELDS) {
    if (sameJson(a[key], b[key])) continue;
    if (key !== "status") return "content";
    status = true;
  }
  return status ? "status" : null;
}

/** Two JSON values alike (objects whatever their keys' order): a report's fields are JSON. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(y, k) && sameJson(x[k], y[k]));
}
