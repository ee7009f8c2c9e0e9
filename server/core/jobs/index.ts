/**
 * The jobs' room: the registry of live jobs, their life (start, stop, rm, respawn), dispatch, replies
 * saved, delivered and typed, the agents' hello and report, names, programs and the sandbox. Every
 * other room stands on it; what they use of it is this.
 */
export { type AgentConnection, applyHello } from "./agents.js";
export { mustStillAsk } from "./asked.js";
export { dispatch } from "./dispatch.js";
export { hookSaid, type Menu, screenRead } from "./hooked.js";
export { IdleStops, SLEPT_WORDS } from "./idle.js";
export { ended, isEnded, onExit, remove, runningJob, stop } from "./lifecycle.js";
export { checkName } from "./names.js";
export { newJobRecord } from "./new-job.js";
export { missingProgram } from "./programs.js";
export { EMPTY_REPORT, type LiveJob, type Registry, type Size } from "./registry.js";
export { hold, releaseHeld, sendPending, sendSaved, takesBatches } from "./replies.js";
export { reply } from "./reply.js";
export { respawn } from "./respawn.js";
export { start } from "./start.js";
export { setReport } from "./state.js";
export { screenSaid, terminalStarted, typePending } from "./typist.js";
export { viewOf } from "./waiting.js";
