/**
 * The pty host's word on a job's screen: a terminal agent's row is read from it (and a protocol
 * agent's, until its first report), with what its own hooks said over it (jobs' hooked.ts), and an
 * idle terminal agent may take its next follow-up.
 */
import type { Core } from "../core.js";
import { isEnded, screenRead, screenSaid } from "../jobs/index.js";
import { DEFAULT_PROMPTS } from "./prompts.js";
import { menuIn } from "./screen-menu.js";
import { compilePatterns, rowFromScreen, type ScreenView } from "./screen-rows.js";

export function onScreen(core: Core, state: ScreenView & { jobId: string; at?: string }): void {
  const job = core.registry.find(state.jobId);
  if (!job || isEnded(job)) return;
  job.screenAt = state.at ?? new Date().toISOString(); // its row's `resources.activeAt`
  if (job.rec.kind === "terminal") {
    job.blockedPatterns ??= compilePatterns(job.rec.launch.blockedPatterns); // once per job
    job.promptPatterns ??= compilePatterns(job.rec.launch.promptPatterns ?? [...DEFAULT_PROMPTS]);
    // A screen that says the same changes nothing.
    const row = rowFromScreen(state, job.blockedPatterns, job.promptPatterns);
    screenRead(core, job, { row, menu: job.rec.launch.hooks ? menuIn(state) : null });
  }
  if (!job.rec.launch.protocol) screenSaid(core, job, state);
}
