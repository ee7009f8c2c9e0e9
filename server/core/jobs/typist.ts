/**
 * Replies typed into terminal agents (they cannot ack): the text then Enter, several lines as
 * one bracketed paste, its controls neutralised (typed-text.ts). A `steer` reply is typed at once; a follow-up when the agent is idle (no
 * output for a quiet spell), one per idle spell, in order. Typed is taken: the reply is acked
 * and its request id kept in one write, just after the typing.
 */
import { DEFAULT_QUIET_MS } from "../../pty/wire.js";
import type { Core } from "../core.js";
import { messageOf } from "../text.js";
import { sessionHookAtStart } from "./agent-hooks.js";
import { delivered } from "./lifecycle.js";
import { menuKeys } from "./menu-keys.js";
import type { LiveJob } from "./registry.js";
import { keystrokes } from "./typed-text.js";

/** How long after a reply's text its Enter goes, for an agent CLI that reads keys at once as a paste. */
const ENTER_AFTER_MS = 150;

/** What a terminal agent's screen last said, and when roost last typed into it (the job's `quiet`). */
export interface Quiet {
  busy: boolean;
  at: number;
  typedAt: number;
  timer: NodeJS.Timeout | null;
  /** Just launched, its agent's hooks say when it takes keys, and none has spoken yet (terminalStarted). */
  awaitingHook: boolean;
}

const quietOf = (job: LiveJob): Quiet => {
  job.quiet ??= { busy: true, at: 0, typedAt: Date.now(), timer: null, awaitingHook: false };
  return job.quiet;
};

/**
 * Idle: the screen said so after roost last typed (output that answered the typing, then quiet), or
 * the agent's own hook said its turn ended since (hooked.ts: an agent whose screen never stills,
 * Codex's, waits for the user all the same).
 */
const isIdle = (q: Quiet, job: LiveJob) =>
  (!q.awaitingHook && !q.busy && q.at >= q.typedAt) ||
  (job.hooked?.state === "done" && job.hooked.at >= q.typedAt);

/**
 * The longest a job just launched waits for its agent's first hook before its screen's quiet counts
 * again: hooks that never run (Gemini CLI skips a settings file others may write) must not keep
 * its task from being typed for good.
 */
const FIRST_HOOK_WAIT_MS = 15_000;

/**
 * A terminal agent's process started: it is busy until its screen first goes quiet. `launched`: it
 * was just launched, not found again running by a restarted daemon. An agent whose hooks say when
 * its session begins (agent-hooks.ts) takes nothing typed before they have: its screen may be quiet
 * while it starts, and Gemini CLI drops what is typed while it waits on its terminal's answers.
 */
export function terminalStarted(core: Core, job: LiveJob, launched: boolean): void {
  if (job.quiet?.timer) clearTimeout(job.quiet.timer);
  job.quiet = null;
  const q = quietOf(job);
  const hooks = job.rec.launch.hooks;
  if (launched && hooks && sessionHookAtStart(hooks.agent)) {
    q.awaitingHook = true;
    setTimeout(() => {
      if (job.quiet !== q || !q.awaitingHook) return;
      q.awaitingHook = true;
      void typePending(core, job);
    }, FIRST_HOOK_WAIT_MS).unref();
  }
  watchForQuiet(core, job);
}

/** Its agent's hook spoke: the screen's quiet counts again (hooked.ts). */
export function hookHeard(job: LiveJob): void {
  if (job.quiet) job.quiet.awaitingHook = false;
}

/**
 * roost started or typed into the job: the pty host then tells when it turns quiet (busy until a
 * quiet spell has passed with nothing running in its foreground). Should no word come within
 * twice the spell (a host from an older roost tells nothing of a program that prints nothing),
 * the host is asked; a job still at work is asked again later, so that nothing is typed into a
 * running command, and follow-ups are not stuck either.
 */
function watchForQuiet(core: Core, job: LiveJob): void {
  const q = quietOf(job);
  if (q.timer) clearTimeout(q.timer);
  const ms = 2 * (job.rec.launch.quietMs ?? DEFAULT_QUIET_MS);
  q.timer = setTimeout(() => {
    q.timer = null;
    if (q.at < q.typedAt) void askScreen(core, job, q);
  }, ms);
  q.timer.unref();
}

async function askScreen(core: Core, job: LiveJob, q: Quiet): Promise<void> {
  let busy: boolean;
  try {
    busy = (await (await core.terminals()).screen(job.rec.id)).busy;
  } catch {
    return; // ended, or the host is gone: nothing to type into now
  }
  if (job.quiet !== q || q.at >= q.typedAt) return; // restarted, or the screen spoke meanwhile
  if (busy) watchForQuiet(core, job);
  else screenSaid(core, job, { busy: false });
}

/** The pty host said whether output flows; an idle agent may take its next follow-up. */
export function screenSaid(core: Core, job: LiveJob, state: { busy: boolean }): void {
  const q = quietOf(job);
  q.busy = state.busy;
  q.at = Date.now();
  if (!state.busy) void typePending(core, job);
}

/**
 * Types what is pending and may be typed now; one typist per job (its `typing`), so nothing is
 * typed twice. Never fails: what it could not type (the pty host gone under it) stays waiting,
 * and is typed once the job runs again; the reply that asked for it is saved all the same.
 */
export function typePending(core: Core, job: LiveJob): Promise<void> {
  return job.typing.run(async () => {
    if (job.pending === 0 || job.rec.life !== "running" || job.link !== null) return;
    try {
      await typeNow(core, job);
    } catch (err) {
      console.error(`roost: could not type into ${job.rec.id} (${messageOf(err)}); its replies wait`);
    }
  });
}

async function typeNow(core: Core, job: LiveJob): Promise<void> {
  const q = quietOf(job);
  let followUpTyped = false;
  let typed = 0;
  const terminals = await core.terminals();
  for (const r of core.store.pendingReplies(job.rec.id)) {
    if (r.kind !== null) continue; // peer items are for protocol agents
    // An option of the menu the row asks about (a permission prompt's) is its key alone, typed at
    // once: the agent waits on its menu (its screen may still move: Codex's spinner runs).
    const key = r.peer === null && !followUpTyped ? menuKeys(job, r.text) : null;
    if (key === null && r.mode !== "steer" && (followUpTyped || !isIdle(q, job))) continue;
    const keys = key ?? keystrokes(r.text, r.peer !== null); // a peer item: always a paste
    if (key === null && job.rec.launch.hooks && keys.endsWith("\r")) {
      // Codex and Gemini CLI take keys that come at once as a paste, its Enter a new line in it:
      // the Enter goes on its own, a moment after.
      await terminals.write(job.rec.id, keys.slice(0, -1));
      await new Promise((resolve) => setTimeout(resolve, ENTER_AFTER_MS));
      await terminals.write(job.rec.id, "\r");
    } else {
      await terminals.write(job.rec.id, keys);
    }
    core.store.markTyped(job.rec.id, r.seq);
    job.pending--;
    typed++;
    delivered(core, r);
    if (r.mode !== "steer") followUpTyped = true;
    q.typedAt = Date.now();
    q.busy = true;
  }
  if (q.typedAt > q.at) watchForQuiet(core, job);
  if (typed > 0) core.registry.changed(job, false); // its waiting replies
}
