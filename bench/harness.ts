/**
 * A real daemon for the benchmarks: `node dist/server/cli/main.js daemon` as its own process, on a
 * fresh temp ROOST_HOME. Everything started here is killed by pid at the end, also when a scenario
 * fails or the run is interrupted: the daemon, the jobs (the pty host's children) and the pty host.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DaemonProcess, daemonEnv } from "../test/helpers/daemon-process.js";
import { isAlive, killJobsOf, killQuietly, procEnv, sleep, until } from "../test/helpers/processes.js";
import { Conn, connectWhenReady } from "./lines.js";

export { childPids, isAlive, procEnv, sleep, until } from "../test/helpers/processes.js";

/** The repository (this file runs as dist/bench/harness.js). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = path.join(ROOT, "dist/server/cli/main.js");
const PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), "probe.js");

/** The profile every scenario dispatches: a protocol agent whose program never speaks. */
export const INERT_CONFIG = {
  agentProfiles: { inert: { command: ["sleep", "600"], task: "type", protocol: true } },
};

export interface DaemonOptions {
  /** roost.json's content, written before the first start: INERT_CONFIG unless said. */
  config?: unknown;
  /** `node --cpu-prof` into this directory, and the event-loop probe (bench/probe.ts). */
  profileDir?: string | null;
}

const live = new Set<BenchDaemon>();
const temps = new Set<string>();

export class BenchDaemon extends DaemonProcess {
  readonly probeFile: string;

  private constructor(
    home: string,
    env: Record<string, string>,
    readonly profileDir: string | null,
  ) {
    super(home, env);
    this.probeFile = path.join(home, "probe.json");
  }

  /** A daemon on a fresh temp home, not started yet. */
  static create(opts: DaemonOptions = {}): BenchDaemon {
    const home = tempDir("roost-bench-");
    fs.writeFileSync(path.join(home, "roost.json"), JSON.stringify(opts.config ?? INERT_CONFIG));
    const env = daemonEnv(home);
    delete env.NODE_OPTIONS; // the pty host and the jobs inherit it: flags go on the daemon's command line
    const d = new BenchDaemon(home, env, opts.profileDir ?? null);
    live.add(d);
    return d;
  }

  static async start(opts: DaemonOptions = {}): Promise<BenchDaemon> {
    const d = BenchDaemon.create(opts);
    await d.start();
    return d;
  }

  /** Starts the process; resolves once a connection to its socket is accepted. */
  async start(): Promise<void> {
    this.launch();
    const conn = await connectWhenReady(this.socket, 15000, () => this.exitReason());
    conn.close();
  }

  /** Spawns `node dist/server/cli/main.js daemon` and returns at once. */
  launch(): ChildProcess {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    const flags: string[] = [];
    const env = { ...this.env };
    if (this.profileDir) {
      fs.mkdirSync(this.profileDir, { recursive: true });
      flags.push("--cpu-prof", `--cpu-prof-dir=${this.profileDir}`, `--import=${pathToFileURL(PROBE).href}`);
      env.BENCH_PROBE_FILE = this.probeFile;
    }
    return this.spawnDaemon([process.execPath, ...flags, CLI, "daemon"], { env });
  }

  /** Reads (and resets) the event-loop probe, which runs with `--profile` only: undefined without it. */
  get probe(): (() => Promise<LoopDelay | null>) | undefined {
    return this.profileDir ? () => readProbe(this) : undefined;
  }

  /** A new connection to the daemon's socket. */
  connect(): Promise<Conn> {
    return Conn.connect(this.socket);
  }

  /** The HTTP face's address (`http://127.0.0.1:PORT/`), from the daemon's `  hub URL` line. */
  async hubUrl(ms = 15000): Promise<string> {
    return until(
      "the daemon's hub line",
      () => {
        const why = this.exitReason();
        if (why) throw new Error(why);
        return this.hubLine();
      },
      ms,
    );
  }

  /** Ends the daemon with a signal and waits for its exit (SIGTERM lets --cpu-prof write its file). */
  async stop(signal: NodeJS.Signals = "SIGTERM", ms = 10000): Promise<void> {
    await this.kill(signal, ms);
  }

  /** Ends the pty host (and with it nothing else: kill the jobs first) and waits until it is gone. */
  async stopPtyHost(): Promise<void> {
    const pid = this.ptyHostPid();
    if (!pid) return;
    killJobsOf(pid);
    killQuietly(pid, "SIGTERM");
    const deadline = performance.now() + 5000;
    while (isAlive(pid) && performance.now() < deadline) await sleep(10);
    if (isAlive(pid)) killQuietly(pid);
    while (isAlive(pid)) await sleep(10);
  }

  /** Kills by pid what this daemon started (the daemon, the jobs, the pty host); removes the home. Synchronous. */
  cleanup(): void {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
    this.removeAll();
    live.delete(this);
  }
}

/** A temp directory, removed at exit whatever happens. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.add(dir);
  return dir;
}

/** Child processes of the benchmark (the baseline server), killed at exit too. */
const children = new Set<ChildProcess>();
export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/**
 * After each scenario (bench/run.ts), whatever happened in it: every daemon it started is stopped
 * (SIGTERM, so that `--cpu-prof` writes its file) and, with all else it started, removed. A
 * scenario closes its own connections; its daemons are the runner's to end.
 */
export async function endScenario(): Promise<void> {
  for (const d of [...live]) {
    try {
      await d.stop();
    } catch (err) {
      console.error("bench: stopping a daemon failed:", err);
    }
  }
  cleanupAll();
}

/** Last resort, at any exit: nothing the benchmark started outlives it. */
export function cleanupAll(): void {
  for (const d of [...live]) {
    try {
      d.cleanup();
    } catch (err) {
      console.error("bench: cleanup failed:", err);
    }
  }
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
  temps.clear();
}

export interface InertJob {
  id: string;
  token: string;
  pid: number;
}

/**
 * Dispatches `n` jobs of the inert profile and reads each one's token from its process's
 * environment, where roost put it (once the exec has happened: before it, /proc shows the
 * environment of the process that forked it).
 */
export function dispatchInert(d: BenchDaemon, n: number): Promise<InertJob[]> {
  return dispatchJobs(d, "inert", n);
}

/**
 * Dispatches `n` jobs of a profile, `inFlight` dispatches at a time on one hub connection, and
 * reads each one's token from its process's environment (see dispatchInert).
 */
export async function dispatchJobs(
  d: BenchDaemon,
  profile: string,
  n: number,
  inFlight = 1,
): Promise<InertJob[]> {
  const hub = await d.connect();
  try {
    const jobs: InertJob[] = [];
    let next = 0;
    const worker = async () => {
      while (next < n) {
        const i = next++;
        const { job } = (await hub.ok("dispatch", { profile })) as { job: { id: string; pid: number } };
        jobs[i] = { id: job.id, token: "", pid: job.pid };
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, n) }, worker));
    for (const job of jobs) {
      if (!job.pid) {
        job.pid = await until(`${job.id}'s pid`, async () => {
          const { rows } = (await hub.ok("list", { id: job.id })) as { rows: { pid: number | null }[] };
          return rows[0]?.pid ?? null;
        });
      }
      job.token = await until(`${job.id}'s token in /proc/${job.pid}/environ`, () => {
        const env = procEnv(job.pid);
        return env.ROOST_JOB_ID === job.id ? (env.ROOST_JOB_TOKEN ?? null) : null;
      });
    }
    return jobs;
  } finally {
    hub.close();
  }
}

/** The event-loop probe's figures (bench/probe.ts), in ms, since its last reset. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Asks the daemon's probe (profile runs only) to write its histogram and start a new one. */
async function readProbe(d: BenchDaemon): Promise<LoopDelay | null> {
  if (!d.proc || !d.profileDir) return null; // without the probe, SIGUSR2 would end the daemon
  fs.rmSync(d.probeFile, { force: true });
  d.proc.kill("SIGUSR2");
  try {
    const text = await until("the probe's file", () => {
      try {
        return fs.readFileSync(d.probeFile, "utf8") || null;
      } catch {
        return null;
      }
    });
    return JSON.parse(text) as LoopDelay;
  } catch {
    return null;
  }
}

const BASELINE_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "baseline-server.js");

/**
 * bench/baseline-server.ts with `args` as its own process; resolves once it says `ready`, with
 * what follows the word on its line (the HTTP server's port).
 */
function startBaseline(args: string[]): Promise<{ child: ChildProcess; said: string }> {
  const child = track(
    spawn(process.execPath, [BASELINE_SERVER, ...args], { stdio: ["ignore", "pipe", "inherit"] }),
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      const ready = /^ready ?(.*)\n/m.exec(out);
      if (ready) resolve({ child, said: ready[1]! });
    });
    child.once("exit", (code) => reject(new Error(`the baseline server exited with ${code}`)));
  });
}

/**
 * The bare JSON-lines server (bench/baseline-server.ts) as its own process; resolves once it
 * listens. `resultFile`: the JSON each answer's result is (else `{}`).
 */
export async function startBaselineServer(socketPath: string, resultFile?: string): Promise<ChildProcess> {
  return (await startBaseline([socketPath, ...(resultFile ? [resultFile] : [])])).child;
}

/** The bare node:http server (`baseline-server.js --http`) as its own process, and its address. */
export async function startBareHttpServer(): Promise<{ child: ChildProcess; url: string }> {
  const { child, said } = await startBaseline(["--http"]);
  return { child, url: `http://127.0.0.1:${said}/` };
}

/** Ends a child process and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await exited;
}

/**
 * With `--profile`: the daemon's pty host started here, before the daemon, under `--cpu-prof`
 * into `dir` (the daemon finds it answering and takes it; the jobs get the environment the daemon
 * gives them, not this one's flags). Resolves once its socket is there; `stopProfiledHost` ends it
 * with SIGTERM, which writes its profile.
 */
export async function startProfiledHost(d: BenchDaemon, dir: string): Promise<ChildProcess> {
  fs.mkdirSync(dir, { recursive: true });
  const host = path.join(ROOT, "dist/server/pty/host.js");
  const child = track(
    spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, host, d.home], {
      detached: true,
      stdio: "ignore",
      cwd: d.home,
      env: d.env,
    }),
  );
  await until("the profiled pty host's socket", () => fs.existsSync(path.join(d.home, "pty.pid")) || null);
  return child;
}

/** Ends a profiled pty host: its jobs first (by pid), then SIGTERM, so that its profile is written. */
export async function stopProfiledHost(host: ChildProcess): Promise<void> {
  killJobsOf(host.pid!);
  await stopChild(host);
}
