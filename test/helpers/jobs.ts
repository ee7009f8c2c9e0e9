/**
 * Small helpers for tests of jobs and replies: a job's row, its directory's files, its process's
 * environment, and a raw agent that speaks for a job with the token read from that environment.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type Roost, startDaemon, TestDaemon, until } from "./daemon.js";
import { type DaemonHere, startDaemonHere } from "./daemon-here.js";
import { childPids, descendants, isAlive, procEnv, ptyHostPid } from "./processes.js";
import type { RawClient } from "./raw-client.js";

export { procEnv } from "./processes.js";

/** A JSON-lines file as objects ([] when it does not exist yet). */
export function lines(file: string): any[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

export const jobDir = (d: Roost, id: string) => path.join(d.home, "jobs", id);

/** What the test agent (test/fixtures/agent.mjs) handled, in order. */
export const handled = (d: Roost, id: string) => lines(path.join(jobDir(d, id), "handled.jsonl"));
/** Every delivery the test agent saw, in order. */
export const deliveries = (d: Roost, id: string) => lines(path.join(jobDir(d, id), "deliveries.jsonl"));

/**
 * Whether the ack of reply `seq` is in the daemon's store (acks are written a moment after they
 * come): a kill -9 after this cannot send that reply again. Read from the store file itself.
 */
export function ackStored(d: Roost, id: string, seq: number): boolean {
  const db = new Database(path.join(d.home, "roost.db"), { readonly: true, fileMustExist: true });
  try {
    const r = db.prepare("SELECT acked FROM replies WHERE job_id = ? AND seq = ?").get(id, seq) as
      | { acked: number }
      | undefined;
    return r?.acked === 1;
  } finally {
    db.close();
  }
}

/** The job's row, from `list {id}`. */
export async function row(c: RawClient, id: string): Promise<any> {
  const { rows } = await c.ok("list", { id });
  if (rows.length !== 1) throw new Error(`list {id: ${id}} gave ${rows.length} rows`);
  return rows[0];
}

/** Polls the job's row until `pred` holds; returns it. */
export function untilRow(
  c: RawClient,
  id: string,
  what: string,
  pred: (r: any) => boolean,
  ms = 15000,
): Promise<any> {
  // A wait that fails says where the row was: its state, view and summary when last looked at.
  return until(
    `${id}: ${what}`,
    async () => {
      const r = await row(c, id);
      if (pred(r)) return r;
      throw new Error(`${r.state}/${r.view}: ${JSON.stringify(r.summary)} (pending ${r.pending})`);
    },
    ms,
  );
}

/**
 * Every row a subscriber was pushed for `shown`'s job, in order, once the push of `shown` (a row
 * `list` showed: the same state and summary) has come, and so every push before it: a
 * connection's pushes come in order. A change's push comes a turn after `list` shows it (a job's
 * pushes are coalesced to one a turn), so pushes read without this wait can lack the latest.
 */
export async function pushedRows(sub: RawClient, shown: any, ms = 15000): Promise<any[]> {
  const ofJob = (e: any) => e.event === "row" && e.row.id === shown.id;
  const isShown = (r: any) => r.state === shown.state && r.summary === shown.summary;
  await sub.event((e) => ofJob(e) && isShown(e.row), `${shown.id}: the push of the row list showed`, ms);
  return sub.events.filter(ofJob).map((e) => e.row);
}

/** Waits until the process is gone (reaped, or a zombie: not running). */
export function untilGone(pid: number, ms = 10000): Promise<boolean> {
  return until(`pid ${pid} gone`, () => !isAlive(pid), ms);
}

/**
 * The process under a job (at any depth) running `command`, by its command line: an example
 * agent's step, which runs in a session of its own (so that a stop can end it whole).
 */
export function stepProcess(jobPid: number, command: string): number | null {
  for (const pid of descendants(jobPid)) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (argv.join(" ") === command) return pid; // the command itself, not the sh -c that runs it
    } catch {}
  }
  return null;
}

/** A fresh directory for a job to work in; removed with `rmTemp`. */
export const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "roost-job-"));
export const rmTemp = (dir: string) => fs.rmSync(dir, { recursive: true, force: true });

/**
 * A daemon whose jobs have bash as the user's shell (the built-in `shell` profile), in the home of
 * their own the harness gives them (no user rc files: a shell starts clean). `home` is that home.
 */
export async function startCleanDaemon(config: unknown): Promise<{ d: TestDaemon; home: string }> {
  return clean(await startDaemon(cleanOptions(config)));
}

/** The same, in the test's own process (daemon-here.ts), for the tests where its process is not the point. */
export async function startCleanDaemonHere(config: unknown): Promise<{ d: DaemonHere; home: string }> {
  return clean(await startDaemonHere(cleanOptions(config)));
}

const cleanOptions = (config: unknown) => ({ config, env: { SHELL: "/bin/bash" } });

function clean<D extends Roost>(d: D): { d: D; home: string } {
  const home = d.env.HOME;
  if (!home || !home.startsWith(d.home)) throw new Error("the harness gave the jobs no home of their own");
  return { d, home };
}

/**
 * How a helper below starts its clean daemon: in a process of its own (`startCleanDaemon`), or in
 * the test's (`startCleanDaemonHere`), where the process is not the point.
 */
type StartClean<D extends Roost> = (config: unknown) => Promise<{ d: D; home: string }>;

/** A terminal job's quiet spell in tests: short, so that a row says idle soon after its screen goes still. */
export const QUIET_MS = 400;

/** A terminal profile: a clean bash (no rc files) whose prompt is `roost$ `. */
export const bashProfile = (quietMs = QUIET_MS) => ({
  command: ["/bin/bash", "--norc", "--noprofile"],
  task: "type",
  quietMs,
  env: { PS1: "roost$ " },
});

/**
 * A program that prints nothing to speak of and waits: an empty line, then `sleep 600` in its
 * place (the same pid). The empty line matters: a job that has printed nothing counts as still
 * starting for its first 5 s (server/pty/jobs.ts, silentStart), so its row would settle only then.
 */
export const SLEEPER = ["sh", "-c", "echo; exec sleep 600"];

/** A protocol profile whose program never connects: its replies wait, unacked. */
export const silentProfile = (extra: Record<string, unknown> = {}) => ({
  command: SLEEPER,
  task: "type",
  protocol: true,
  ...extra,
});

/**
 * Speaks for a running job as its agent would, on a connection of its own: hello and a report
 * (which makes the connection the job's: deliveries come on it). The token is read from the
 * job's process environment, where roost put it.
 */
export async function rawAgent(
  d: Roost,
  hub: RawClient,
  id: string,
): Promise<{ agent: RawClient; token: string }> {
  const r = await untilRow(hub, id, "running with a pid", (x) => x.life === "running" && x.pid);
  // Until the program is exec'd, /proc shows the environment of the process that forked it.
  const token = await until(`pid ${r.pid}'s environment`, () => {
    const env = procEnv(r.pid);
    return env.ROOST_JOB_ID === id ? env.ROOST_JOB_TOKEN : undefined;
  });
  const agent = await d.client();
  await agent.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities: ["replies"] });
  await agent.ok("report", { id, token, report: { state: "working", summary: "raw agent" } });
  return { agent, token };
}

/** The `deliver` events a raw agent got for a job, in arrival order. */
export const delivered = (agent: RawClient, id: string) =>
  agent.events.filter((e) => e.event === "deliver" && e.id === id);

/**
 * A clean daemon for each test that asks (see startCleanDaemon), with a temp dir for its jobs'
 * work: both removed, and everything the daemon started killed, after each test.
 */
export function cleanDaemonPerTest<D extends Roost>(config: () => unknown, start: StartClean<D>) {
  let current: D | undefined;
  const temps: string[] = [];
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
    for (const t of temps.splice(0)) rmTemp(t);
  });
  return async () => {
    const dir = tempDir();
    temps.push(dir);
    const clean = await start(config());
    current = clean.d;
    return { d: clean.d, c: await clean.d.client(), dir, home: clean.home };
  };
}

/**
 * One clean daemon (see startCleanDaemon) for all the tests of the file (or describe) that calls
 * this, its client and a temp dir for its jobs' work: made before them (the fields are set then),
 * all removed and everything the daemon started killed after them.
 */
export function cleanDaemonPerFile<D extends Roost>(
  config: unknown,
  start: StartClean<D>,
): {
  d: D;
  c: RawClient;
  dir: string;
  home: string;
} {
  const shared = {} as { d: D; c: RawClient; dir: string; home: string };
  beforeAll(async () => {
    const clean = await start(config);
    Object.assign(shared, clean, { c: await clean.d.client(), dir: tempDir() });
  });
  afterAll(async () => {
    await shared.d?.cleanup();
    if (shared.dir) rmTemp(shared.dir);
  });
  return shared;
}

/**
 * Every job in `d` removed, and its process gone: what each test of the shared daemon starts from,
 * so that a test's count of jobs (or of the pty host's processes) from zero holds. A daemon a test
 * left stopped (a failed shutdown test) is started again first.
 */
export async function removeAllJobs(d: Roost): Promise<void> {
  if (d instanceof TestDaemon && d.exitReason()) await d.start();
  const c = await d.client();
  try {
    const { rows } = await c.ok("list");
    await Promise.all(rows.map((r: any) => c.ok("rm", { id: r.id })));
    const left = (await c.ok("list")).rows;
    if (left.length > 0) throw new Error(`jobs left after rm: ${left.map((r: any) => r.id).join(" ")}`);
    await until("no job process held", () => {
      const host = ptyHostPid(d.home);
      return host === null || childPids(host).length === 0;
    });
  } finally {
    c.close();
  }
}

/**
 * One clean daemon (see startCleanDaemon) for the tests of this file: started by the first test
 * that asks, each test given a client and a temp dir of its own. After each test every job is
 * removed (removeAllJobs), its client closed and its dir removed; after the file the daemon is
 * killed with everything it started. A test that restarts the daemon leaves it running for the
 * next (restart and shutdown keep the same TestDaemon, its home and pty host). The feed is not
 * emptied: a test reads its own jobs' entries (by id, or from a cursor).
 */
export function sharedCleanDaemon(config: () => unknown) {
  let shared: { d: TestDaemon; home: string } | undefined;
  let current: { c: RawClient; dir: string } | undefined;
  afterEach(async () => {
    const mine = current;
    current = undefined;
    if (!mine || !shared) return;
    mine.c.close();
    try {
      await removeAllJobs(shared.d);
    } finally {
      rmTemp(mine.dir);
    }
  });
  afterAll(async () => {
    await shared?.d.cleanup();
  });
  return async () => {
    shared ??= await startCleanDaemon(config());
    const mine = { c: await shared.d.client(), dir: tempDir() };
    current = mine;
    return { d: shared.d, c: mine.c, dir: mine.dir, home: shared.home };
  };
}

/**
 * Every running job of `d` stopped, what the next test of a shared daemon starts from; a daemon a
 * failed test left down is started again first.
 */
export async function stopRunningJobs(d: Roost): Promise<void> {
  if (d instanceof TestDaemon && d.exitReason()) await d.start();
  const c = await d.client();
  const { rows } = await c.ok("list", {});
  for (const r of rows) if (r.life === "running") await c.ok("stop", { id: r.id });
}
