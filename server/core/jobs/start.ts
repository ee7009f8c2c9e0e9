/**
 * A job started (docs/protocol.md, "The hub's ops"): its process in its own pseudo-terminal, held
 * by the pty host, started anew or again (`respawn`). A change of its life like the others
 * (lifecycle.ts): one at a time.
 */
import fs from "node:fs";
import path from "node:path";
import { RoostError, type Row } from "../../../sdk/ts/protocol/index.js";
import { jobDir } from "../../paths.js";
import { HostGone } from "../../pty/client.js";
import { DEFAULT_QUIET_MS } from "../../pty/wire.js";
import type { JobRecord } from "../../store/records.js";
import type { Core } from "../core.js";
import { type Actor, ROOST } from "../feed.js";
import { excerpt } from "../text.js";
import { beginConversation, conversationText } from "./conversation.js";
import { ended, oneAtATime, stopNow } from "./lifecycle.js";
import type { LiveJob } from "./registry.js";
import { BWRAP_WRAPPERS, bwrapArgs, findBwrap, sandboxSocket } from "./sandbox.js";
import { terminalStarted } from "./typist.js";

/**
 * Starts a new job's process, or an ended one's again; one that runs already (another request
 * started it meanwhile) is left as it is.
 */
export function start(core: Core, job: LiveJob): Promise<void> {
  return oneAtATime(core, job, async () => {
    if (job.rec.life !== "running") await startNow(core, job);
  });
}

/** Starts (or starts again) the job's process in its own pseudo-terminal, held by the pty host. */
async function startNow(core: Core, job: LiveJob): Promise<void> {
  const rec = job.rec;
  // A foreground pi is started by its user, in a terminal of theirs: its replies wait for it.
  if (rec.kind === "foreground") return;
  const dir = jobDir(core.paths, rec.id);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.rmSync(path.join(dir, "exit.json"), { force: true });
  Object.assign(rec, {
    life: "starting",
    exitCode: null,
    endedAt: null,
    pid: null,
    kind: "terminal",
    report: null,
    stopReason: null,
  });
  job.link = null;
  // Its agent is away from now: a new process has the grace to connect (the board's claims).
  job.awaySince = Date.now();
  job.stopping = null;
  job.stopFor = null;
  job.stopWords = null;
  // A protocol agent begins anew: `starting` until its first turn (waiting.ts).
  job.begun = !rec.launch.protocol;
  job.handedBack = false;
  Object.assign(job, { screen: null, hooked: null }); // a new process: its screen and its hooks say anew
  core.registry.changed(job, true);
  try {
    // Where its agent can, it goes on with its conversation (conversation.ts).
    const beginning = beginConversation(core.paths, rec, core.env);
    rec.conversation = beginning.conversation;
    const [file, ...args] = await commandOf(core, rec, beginning.command);
    job.size = job.ownSize; // a new terminal has no viewer yet
    const spawn = async () =>
      (await core.terminals()).spawn({
        jobId: rec.id,
        file,
        args,
        cwd: rec.launch.cwd,
        env: { ...jobEnv(core, rec), ...beginning.env },
        ...job.ownSize,
        quietMs: rec.launch.quietMs ?? DEFAULT_QUIET_MS,
        wrappers: rec.launch.sandbox ? BWRAP_WRAPPERS : 0,
      });
    // A host that went away as the spawn was asked of it (its close not yet seen) started nothing:
    // the job starts on the next host, which the link makes on demand.
    const { pid } = await spawn().catch((err) => {
      if (err instanceof HostGone) return spawn();
      throw err;
    });
    Object.assign(rec, { life: "running", pid, startedAt: new Date().toISOString() });
    core.budgets.started(job); // its running time counts from now
    core.registry.changed(job, true);
    const text = `started ${excerpt(rec.launch.command.join(" "))} (pid ${pid})${conversationText(rec.conversation)}`;
    core.feed.record(rec.id, "start", text, ROOST);
    if (!rec.launch.protocol) terminalStarted(core, job, true);
  } catch (err) {
    ended(core, job, null, `could not start: ${(err as Error).message}`);
  }
}

/**
 * What the pty host runs: the job's command, or for a sandboxed job bubblewrap around it, its own
 * socket listening first (so that its agent finds it at once).
 */
async function commandOf(core: Core, rec: JobRecord, command: string[]): Promise<[string, ...string[]]> {
  const sandbox = rec.launch.sandbox;
  if (!sandbox) return command as [string, ...string[]];
  const bwrap = findBwrap(core.bwrap, core.env);
  const args = bwrapArgs(core.paths, rec, sandbox);
  await core.jobSockets.open(rec.id);
  return [bwrap, ...args, ...command];
}

/** The job's environment: roost's names and the older ones, with the same values. */
function jobEnv(core: Core, rec: JobRecord): Record<string, string> {
  const identity = {
    JOB_ID: rec.id,
    JOB_TOKEN: rec.token,
    // A sandboxed job reaches roost through its own socket alone: the owner's is hidden from it.
    SOCKET: rec.launch.sandbox ? sandboxSocket(core.paths, rec.id) : core.paths.socket,
    JOB_DIR: jobDir(core.paths, rec.id),
  };
  const old = {
    JOB_ID: "PI_JOB_ID",
    JOB_TOKEN: "PI_JOB_TOKEN",
    SOCKET: "PI_DAEMON_SOCK",
    JOB_DIR: "PI_JOB_DIR",
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(core.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, rec.launch.env, { TERM: "xterm-256color", ROOST_HOME: core.paths.home });
  for (const [k, v] of Object.entries(identity)) {
    env[`ROOST_${k}`] = v;
    env[old[k as keyof typeof old]] = v;
  }
  return env;
}

/** Starts the job again under the same id (a running one is stopped first); its seq continues. */
export function respawn(core: Core, job: LiveJob, actor: Actor): Promise<Row> {
  if (job.rec.kind === "foreground")
    throw new RoostError(
      "bad_request",
      `${job.rec.id} is a foreground pi: its user starts it, in a terminal of theirs`,
    );
  return oneAtATime(core, job, async () => {
    job.respawning = true;
    try {
      await stopNow(core, job, actor);
    } finally {
      job.respawning = false;
    }
    core.feed.record(job.rec.id, "respawn", "respawned", actor);
    await startNow(core, job);
    return core.registry.row(job);
  });
}
