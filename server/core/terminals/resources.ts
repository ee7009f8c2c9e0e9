/**
 * What the pty host reads of each job's processes every few seconds (pty/resources.ts), kept on
 * the job and shown on its row (`resources`, docs/budgets.md). Not content: no `updatedAt`, no
 * write, no feed entry; and the row is pushed only when a value moved noticeably, so that forty
 * idle agents do not push forty rows to every hub every 5 s.
 */
import type { JobResources } from "../../pty/client.js";
import type { Core } from "../core.js";
import type { LiveJob } from "../jobs/index.js";

/** CPU moves by this many points (of one core's 100) before the row is pushed again. */
const CPU_STEP = 1;
/** Memory moves by this much and by this share (the larger) before the row is pushed again. */
const MEMORY_STEP_BYTES = 1024 * 1024;
const MEMORY_STEP_SHARE = 0.02;

type Kept = NonNullable<LiveJob["resources"]>;

const movedBytes = (a: number | null, b: number | null): boolean => {
  if (a === null || b === null) return a !== b;
  const d = Math.abs(a - b);
  return d >= Math.max(MEMORY_STEP_BYTES, MEMORY_STEP_SHARE * Math.max(a, b));
};

/** True when the row should say `next` rather than `was`. */
export function movedNoticeably(was: Kept | null, next: Kept): boolean {
  if (was === null) return true;
  return (
    was.pid !== next.pid ||
    was.procs !== next.procs ||
    Math.abs(was.cpu - next.cpu) >= CPU_STEP ||
    movedBytes(was.rss, next.rss) ||
    (next.pss !== null && movedBytes(was.pss, next.pss))
  );
}

export function onResources(core: Core, pass: { jobs: JobResources[] }): void {
  const seen = new Set<string>();
  for (const { jobId, ...next } of pass.jobs) {
    const job = core.registry.find(jobId);
    if (!job) continue;
    seen.add(jobId);
    // A pass that read no PSS keeps the last one read.
    const kept: Kept = { ...next, pss: next.pss ?? job.resources?.pss ?? null };
    const push = movedNoticeably(job.resources, kept);
    // Kept as read (cpuSeconds moves every pass); shown when it moved noticeably.
    job.resources = kept;
    if (push && job.rec.life === "running") core.registry.shown(job);
  }
  // Jobs the host no longer runs: nothing to say of them (their row says null already).
  for (const job of core.registry.all()) {
    if (job.resources !== null && !seen.has(job.rec.id)) job.resources = null;
  }
}
