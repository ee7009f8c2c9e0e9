/**
 * A real daemon for tests: its own process (daemon-process.ts) on a fresh temp ROOST_HOME, spoken
 * to over its real socket. Teardown kills by pid everything it started: the jobs, the pty host,
 * the daemon.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { socketAnswers } from "../../sdk/ts/client/socket-client.js";
import { DaemonProcess, daemonEnv } from "./daemon-process.js";
import { killPtyHost, sleep } from "./processes.js";
import { RawClient } from "./raw-client.js";

export { childPids, isAlive, sleep, until } from "./processes.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = path.join(ROOT, "dist/server/cli/main.js");
export const FIXTURES = path.join(ROOT, "test/fixtures");

export interface DaemonOptions {
  /** roost.json's content (written before start). */
  config?: unknown;
  env?: Record<string, string>;
  /** A home made beforehand (a store to start on); a fresh temp one by default. */
  home?: string;
  /** A command the daemon runs under, its argv before node's (`["prlimit", "--nofile=2048:2048"]`). */
  wrap?: string[];
}

/**
 * What a test speaks to, whichever way its daemon runs: in a process of its own (`TestDaemon`) or in
 * the test's (daemon-here.ts's `DaemonHere`).
 */
export interface Roost {
  readonly home: string;
  /** Its environment, which its jobs inherit. */
  readonly env: Record<string, string>;
  readonly socket: string;
  /** The hub's address (`http://127.0.0.1:PORT/`). */
  readonly url: string;
  /** The owner's HTTP token. */
  readonly token: string;
  client(): Promise<RawClient>;
  cleanup(): Promise<void>;
}

/** The daemons started in this test file's process, for the output of a failed test (on-failure.ts). */
export const daemonsStarted: TestDaemon[] = [];

export class TestDaemon extends DaemonProcess implements Roost {
  /** The hub's address (`http://127.0.0.1:PORT/`), known once started. */
  url = "";
  private outputAtStart = 0;
  private readonly clients: RawClient[] = [];

  constructor(
    home: string,
    env: Record<string, string>,
    /** What the daemon runs under: an exec'ing wrapper, so that the pid is still the daemon's. */
    readonly wrap: string[] = [],
  ) {
    super(home, env);
    daemonsStarted.push(this);
  }

  /** Starts the daemon and waits until its socket answers; its output is kept across restarts. */
  async start(): Promise<void> {
    this.outputAtStart = this.output.length;
    this.spawnDaemon([...this.wrap, process.execPath, CLI, "daemon"], { keepOutput: true });
    // 30 s: under a load of 15 to 20 (a whole run beside other work) a start was seen to take over 15.
    const deadline = Date.now() + 30000;
    while (Date.now() < deadline) {
      const exited = this.exitReason();
      if (exited) throw new Error(exited);
      const hub = this.hubLine(this.outputAtStart);
      if (hub && (await socketAnswers(this.socket))) {
        this.url = hub;
        return;
      }
      await sleep(25);
    }
    // Not left behind: killed by pid with whatever it started (its pty host, any job).
    await this.kill("SIGKILL");
    killPtyHost(this.home);
    throw new Error(`the daemon did not start:\n${this.output}`);
  }

  /** A raw socket client; closed at teardown. */
  async client(): Promise<RawClient> {
    const c = await RawClient.connect(this.socket);
    this.clients.push(c);
    return c;
  }

  async restart(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    await this.kill(signal);
    await this.start();
  }

  /** Kills what this test started, by pid: the jobs (the pty host's children), the host, the daemon. */
  async cleanup(): Promise<void> {
    for (const c of this.clients) c.close();
    await this.kill("SIGKILL");
    this.removeAll();
  }
}

/**
 * `roost daemon` run where it must refuse to start: its exit code and what it printed. The pty
 * host it may have started in `env.ROOST_HOME` is killed by pid; a daemon still running after `ms`
 * (it did start after all) is killed too, and that is the test's failure.
 */
export async function daemonRefusal(
  env: Record<string, string | undefined>,
  ms = 20000,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const proc = spawn(process.execPath, [CLI, "daemon"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => {
    stdout += d;
  });
  proc.stderr.on("data", (d) => {
    stderr += d;
  });
  // "close": the process has exited and both pipes were read to their end.
  const exited = new Promise<number | null>((resolve) => proc.once("close", (code) => resolve(code)));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"running">((resolve) => {
    timer = setTimeout(() => resolve("running"), ms);
  });
  const code = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (code === "running") proc.kill("SIGKILL");
  await exited;
  // A refusal found late (the port taken) comes after the pty host was started: it would go
  // away by itself once idle, but it is ours to end now.
  if (env.ROOST_HOME) killPtyHost(env.ROOST_HOME);
  if (code === "running")
    throw new Error(`roost daemon was still running after ${ms} ms:\n${stdout}${stderr}`);
  return { code, stdout, stderr };
}

export async function startDaemon(opts: DaemonOptions = {}): Promise<TestDaemon> {
  const { home, env } = daemonHome(opts);
  const daemon = new TestDaemon(home, env, opts.wrap);
  await daemon.start();
  return daemon;
}

/** A daemon's home (a fresh temp one unless given), its roost.json written, and its environment. */
export function daemonHome(opts: DaemonOptions): { home: string; env: Record<string, string> } {
  const home = opts.home ?? fs.mkdtempSync(path.join(os.tmpdir(), "roost-test-"));
  // Owner-only, as `roost remote add` writes it: one holding remotes' tokens must be (config.ts).
  if (opts.config !== undefined)
    fs.writeFileSync(path.join(home, "roost.json"), JSON.stringify(opts.config), { mode: 0o600 });
  return { home, env: daemonEnv(home, opts.env) };
}

/** A profile that runs the test agent (test/fixtures/agent.mjs) as a protocol agent. */
export const agentProfile = (extra: Record<string, unknown> = {}) => ({
  command: [process.execPath, path.join(FIXTURES, "agent.mjs")],
  task: "type",
  protocol: true,
  ...extra,
});

export { socketAnswers as answers };
