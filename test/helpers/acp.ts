/**
 * ACP jobs under a real daemon, for the ACP tests: a daemon whose `acpt` profile runs the scripted
 * ACP agent (test/fixtures/acp-agent.mjs, on the official ACP SDK) through roost's ACP bridge, and a
 * working directory per job, where the agent writes what it was asked (`acp-log.jsonl`). `npm run
 * build` first: the bridge and `roost mcp` run from dist/.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { FIXTURES, startDaemon, type TestDaemon } from "./daemon.js";
import { lines, untilRow } from "./jobs.js";
import type { RawClient } from "./raw-client.js";

export const ACP_AGENT = path.join(FIXTURES, "acp-agent.mjs");
/** How long a test waits for what an ACP job does (the bridge and the agent are two node processes). */
export const ACP_WAIT = 60_000;

/** The profile of the scripted ACP agent. */
export const acpProfile = (extra: Record<string, unknown> = {}) => ({
  command: [process.execPath, ACP_AGENT],
  acp: true,
  ...extra,
});

export interface AcpWorld {
  d: TestDaemon;
  c: RawClient;
  /** A new working directory for a job (its agent's log is there). */
  workDir(name: string): string;
  /** Dispatches a profile (`acpt` unless said) in its own working directory; the job's id and that directory. */
  dispatch(task: string | undefined, extra?: Record<string, unknown>): Promise<{ id: string; work: string }>;
  /** Polls the job's row until `pred` holds. */
  until(id: string, what: string, pred: (r: any) => boolean): Promise<any>;
  /** What the agent working in `work` was asked and answered, in order. */
  log(work: string): any[];
}

/** One world per test that asks: its daemon is killed (with its jobs) and its directories removed after the test. */
export function acpWorldPerTest(
  opts: { profiles?: Record<string, unknown>; env?: Record<string, string> } = {},
) {
  let current: { d?: TestDaemon; dirs: string[] } | null = null;
  afterEach(async () => {
    if (!current) return;
    await current.d?.cleanup();
    for (const dir of current.dirs) fs.rmSync(dir, { recursive: true, force: true });
    current = null;
  });
  return async (): Promise<AcpWorld> => {
    current = { dirs: [] };
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-acp-"));
    current.dirs.push(base);
    const d = await startDaemon({
      config: { agentProfiles: { acpt: acpProfile(), ...opts.profiles } },
      env: { ...opts.env },
    });
    current.d = d;
    const c = await d.client();
    let n = 0;
    const workDir = (name: string) => {
      const dir = path.join(base, name);
      fs.mkdirSync(dir, { recursive: true });
      return dir;
    };
    return {
      d,
      c,
      workDir,
      async dispatch(task, extra = {}) {
        const work = workDir(`w${++n}`);
        const args = { profile: "acpt", cwd: work, ...(task === undefined ? {} : { task }), ...extra };
        const { job } = await c.ok("dispatch", args);
        return { id: job.id as string, work };
      },
      until: (id, what, pred) => untilRow(c, id, what, pred, ACP_WAIT),
      log: (work) => lines(path.join(work, "acp-log.jsonl")),
    };
  };
}

/**
 * One world (its daemon) for the tests that leave the daemon as it is: each test's jobs, in
 * working directories of their own, are stopped after it; the daemon and the directories go after
 * the file. As acpWorldPerTest's world, with the same profiles.
 */
export function acpWorldPerFile(profiles: Record<string, unknown>): () => AcpWorld {
  let d: TestDaemon | undefined;
  let c: AcpWorld["c"] | undefined;
  let base = "";
  let n = 0;
  /** The jobs the running test dispatched. */
  const ids: string[] = [];
  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-acp-"));
    d = await startDaemon({ config: { agentProfiles: { acpt: acpProfile(), ...profiles } } });
    c = await d.client();
  });
  afterEach(async () => {
    // One that ended already says so: no failure of the test's.
    for (const id of ids.splice(0)) await c?.request("stop", { id });
  });
  afterAll(async () => {
    await d?.cleanup();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });
  const workDir = (name: string) => {
    const dir = path.join(base, name);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  };
  return () => ({
    d: d!,
    c: c!,
    workDir,
    async dispatch(task, extra = {}) {
      const work = workDir(`w${++n}`);
      const args = { profile: "acpt", cwd: work, ...(task === undefined ? {} : { task }), ...extra };
      const { job } = await c!.ok("dispatch", args);
      ids.push(job.id);
      return { id: job.id as string, work };
    },
    until: (id, what, pred) => untilRow(c!, id, what, pred, ACP_WAIT),
    log: (work) => lines(path.join(work, "acp-log.jsonl")),
  });
}

/** Waits until the job's turn is over and every reply taken: done (or failed), idle, nothing pending. */
export const untilSettled = (w: AcpWorld, id: string) =>
  w.until(
    id,
    "settled",
    (r) => (r.state === "done" || r.state === "failed") && r.status === "idle" && r.pending === 0,
  );
