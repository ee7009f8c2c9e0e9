/**
 * pi under a real daemon, for the pi tests: the scripted model (scripted-model.ts), a pi agent
 * directory pointing pi at it, and a daemon whose jobs find the pinned pi (node_modules/.bin) on
 * their PATH, run offline. Each test's pi jobs are dispatched with the built-in `pi` profile.
 *
 * A job's script is keyed by a tag its task starts with (`[alice] count the files`): the first user
 * message of every request pi makes for that job carries it, whatever model pi runs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { ROOT, startDaemon, type TestDaemon, until } from "./daemon.js";
import { row, untilRow } from "./jobs.js";
import type { RawClient } from "./raw-client.js";
import {
  type ScriptedModel,
  type ScriptedModelEntry,
  startScriptedModel,
  writePiAgentDir,
} from "./scripted-model.js";

export { SCRIPTED_COST } from "./scripted-model.js";

/** The pinned pi's bin directory, put first on the jobs' PATH. */
export const PI_BIN = path.join(ROOT, "node_modules/.bin");
/** How long a pi test waits for what pi does (pi starts in 1-2 s alone; much longer on a loaded machine). */
export const PI_WAIT = 90_000;

export interface PiWorld {
  d: TestDaemon;
  c: RawClient;
  model: ScriptedModel;
  /** pi's agent directory (models.json, settings.json, its sessions). */
  agentDir: string;
  /** A directory for the jobs to work in. */
  work: string;
  /** Dispatches the `pi` profile with a task; returns the job's id. */
  dispatch(task: string, extra?: Record<string, unknown>): Promise<string>;
  /** Polls the job's row until `pred` holds (for as long as pi may take). */
  until(id: string, what: string, pred: (r: any) => boolean): Promise<any>;
}

/**
 * One world per test that asks (a daemon, a scripted model): everything it started is stopped
 * and removed after the test, the daemon's jobs killed by pid.
 */
export function piWorldPerTest(
  opts: { config?: unknown; models?: ScriptedModelEntry[]; env?: Record<string, string> } = {},
) {
  let current: { d?: TestDaemon; model?: ScriptedModel; dirs: string[] } | null = null;
  afterEach(async () => {
    if (!current) return;
    await current.d?.cleanup();
    await current.model?.close();
    for (const dir of current.dirs) fs.rmSync(dir, { recursive: true, force: true });
    current = null;
  });
  return async (): Promise<PiWorld> => {
    current = { dirs: [] };
    const model = await startScriptedModel();
    current.model = model;
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-pi-"));
    current.dirs.push(base);
    const agentDir = writePiAgentDir(path.join(base, "agent"), model.url, opts.models ?? [{ id: "m1" }]);
    const work = path.join(base, "work");
    fs.mkdirSync(work);
    const d = await startDaemon({
      config: opts.config,
      env: {
        PATH: `${PI_BIN}:${process.env.PATH}`,
        PI_CODING_AGENT_DIR: agentDir,
        PI_OFFLINE: "1",
        PI_SKIP_VERSION_CHECK: "1",
        SHELL: "/bin/bash",
        ...opts.env,
      },
    });
    current.d = d;
    const c = await d.client();
    return {
      d,
      c,
      model,
      agentDir,
      work,
      async dispatch(task, extra = {}) {
        const { job } = await c.ok("dispatch", { profile: "pi", task, cwd: work, ...extra });
        return job.id as string;
      },
      until: (id, what, pred) => untilRow(c, id, what, pred, PI_WAIT),
    };
  };
}

/** Waits until the job's row says done (pi settled), and returns it. */
export const untilDone = (w: PiWorld, id: string) =>
  w.until(id, "pi done", (r) => r.state === "done" && r.status === "idle" && r.pending === 0);

/** Waits until the scripted model has had `n` requests under `key`. */
export const untilRequests = (w: PiWorld, key: string, n: number) =>
  until(`${n} model requests for ${key}`, () => w.model.requestsFor(key).length >= n, PI_WAIT);

export { row };
