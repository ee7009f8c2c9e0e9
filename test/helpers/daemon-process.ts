/**
 * A daemon as its own process, the one copy for the tests (daemon.ts) and the benchmark
 * (bench/harness.ts, which compiles this file with its own): a fresh temp home, the environment
 * it runs in, its output kept, its end waited for, and what it started killed by pid.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { killPtyHost, ptyHostPid } from "./processes.js";

/** The line the daemon says its HTTP face's address in: `  hub http://127.0.0.1:PORT/`. */
const HUB_LINE = /^ {2}hub (http:\S+)$/m;

/**
 * The daemon's environment: this process's without any ROOST_*, a home of the jobs' own (so that a
 * shell job reads none of the machine's rc files, and dispatch's default cwd is in the temp home),
 * a short stop grace, and any free port (daemons run side by side, the tests' and the bench's).
 */
export function daemonEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith("ROOST_")) env[k] = v;
  const userHome = path.join(home, "user-home");
  fs.mkdirSync(userHome, { recursive: true });
  return Object.assign(
    env,
    { ROOST_HOME: home, HOME: userHome, ROOST_STOP_GRACE_MS: "1000", ROOST_PORT: "0" },
    extra,
  );
}

export class DaemonProcess {
  proc: ChildProcess | null = null;
  /** What it printed, stdout and stderr: since its last spawn, or its first (see `spawnDaemon`). */
  output = "";
  readonly socket: string;

  constructor(
    readonly home: string,
    readonly env: Record<string, string>,
  ) {
    this.socket = path.join(home, "roost.sock");
  }

  get pid(): number {
    return this.proc!.pid!;
  }

  /** The owner's HTTP token ($ROOST_HOME/token). */
  get token(): string {
    return fs.readFileSync(path.join(this.home, "token"), "utf8").trim();
  }

  /** Spawns `argv` (node, the CLI and `daemon`, after whatever runs it) and returns at once. */
  protected spawnDaemon(argv: string[], opts: { env?: Record<string, string>; keepOutput?: boolean } = {}) {
    const [command, ...args] = argv;
    if (!opts.keepOutput) this.output = "";
    const proc = spawn(command!, args, { env: opts.env ?? this.env, stdio: ["ignore", "pipe", "pipe"] });
    this.proc = proc;
    proc.stdout!.on("data", (d) => {
      this.output += d;
    });
    proc.stderr!.on("data", (d) => {
      this.output += d;
    });
    return proc;
  }

  /** Why waiting for the daemon is pointless: it exited (with what it said); null while it runs. */
  exitReason(): string | null {
    const proc = this.proc;
    if (!proc || (proc.exitCode === null && proc.signalCode === null)) return null;
    return `the daemon exited (${proc.exitCode ?? proc.signalCode}):\n${this.output}`;
  }

  /** The hub's address, once the daemon said it (in its output from `from` on). */
  hubLine(from = 0): string | null {
    return HUB_LINE.exec(this.output.slice(from))?.[1] ?? null;
  }

  /** Ends the daemon with a signal and waits for its exit code; SIGKILL after `killAfterMs` if given. */
  async kill(signal: NodeJS.Signals = "SIGTERM", killAfterMs?: number): Promise<number | null> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return proc?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    proc.kill(signal);
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => proc.kill("SIGKILL"), killAfterMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  ptyHostPid(): number | null {
    return ptyHostPid(this.home);
  }

  /** The pty host, the jobs it holds (they outlive the daemon by design) and the home: gone. */
  protected removeAll(): void {
    removeHome(this.home);
  }
}

/** A daemon's home gone, with its pty host and the jobs it holds (they outlive the daemon by design). */
export function removeHome(home: string): void {
  killPtyHost(home);
  // Retried: a job killed a moment ago may still be writing in its folder (ENOTEMPTY); a
  // sandboxed one's processes end after their bubblewrap, and on a loaded CI machine 5.5 s of
  // node's own retries were too few. For up to 30 s, then the error.
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
}
