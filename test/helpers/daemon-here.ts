/**
 * A real daemon in the test's own process, for the tests where a process of its own is not the
 * point: the real daemon (server/main.ts's `startDaemon`: the real core, the real store on a SQLite
 * file in a fresh temp ROOST_HOME, the real socket and HTTP face), spoken to over its real socket
 * and HTTP as daemon.ts's is. What it spares is a process's start: node and the daemon's modules,
 * which a worker loads once instead (about 0.1 s of CPU and of wall saved a daemon, net:
 * docs/testing.md). What it starts (the pty host and the jobs) are processes still, killed by pid
 * at teardown.
 *
 * A test of a crash, a restart, a signal or what the daemon prints starts a process (daemon.ts).
 * So does one of worktrees or the merge queue: git and the queue's checks run in the daemon
 * process's own environment, which here would be the test's.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Daemon } from "../../server/main.js";
import { type DaemonOptions, daemonHome, ROOT, type Roost } from "./daemon.js";
import { removeHome } from "./daemon-process.js";
import { RawClient } from "./raw-client.js";

export class DaemonHere implements Roost {
  readonly socket: string;
  private readonly clients: RawClient[] = [];

  constructor(
    readonly home: string,
    readonly env: Record<string, string>,
    private daemon: Daemon,
  ) {
    this.socket = daemon.core.paths.socket;
  }

  /**
   * Stopped as SIGTERM stops it, and started again on the same home (its store, its jobs still
   * running in the pty host). A kill -9 is a process's: such a test starts one (daemon.ts).
   */
  async restart(): Promise<void> {
    await this.daemon.stop();
    this.daemon = await startHere(this.env);
  }

  /** The hub's address (`http://127.0.0.1:PORT/`). */
  get url(): string {
    return this.daemon.url;
  }

  /** The owner's HTTP token ($ROOST_HOME/token). */
  get token(): string {
    return fs.readFileSync(path.join(this.home, "token"), "utf8").trim();
  }

  /** A raw socket client; closed at teardown. */
  async client(): Promise<RawClient> {
    const c = await RawClient.connect(this.socket);
    this.clients.push(c);
    return c;
  }

  /** Stops the daemon as SIGTERM would, then kills what it started by pid and removes its home. */
  async cleanup(): Promise<void> {
    for (const c of this.clients) c.close();
    await this.daemon.stop();
    removeHome(this.home);
  }
}

/**
 * The built daemon's modules (dist/, as the other tiers' daemon processes run), loaded by node
 * itself (vitest.config.ts: dist/ is external), not compiled again from the source in each worker
 * (seconds of CPU). Loaded once per worker, as the test files share their modules.
 */
const built = async () => {
  const [main, secrets] = (await Promise.all([
    import(/* @vite-ignore */ pathToFileURL(path.join(ROOT, "dist/server/main.js")).href),
    import(/* @vite-ignore */ pathToFileURL(path.join(ROOT, "dist/server/secrets.js")).href),
  ])) as [typeof import("../../server/main.js"), typeof import("../../server/secrets.js")];
  return { startDaemon: main.startDaemon, Secrets: secrets.Secrets };
};

/** A daemon started in this process on a fresh temp home (or `opts.home`), with `opts.config`. */
export async function startDaemonHere(opts: Omit<DaemonOptions, "wrap"> = {}): Promise<DaemonHere> {
  const { home, env } = daemonHome(opts);
  return new DaemonHere(home, env, await startHere(env));
}

async function startHere(env: Record<string, string>): Promise<Daemon> {
  const { startDaemon, Secrets } = await built();
  return startDaemon(env, { secrets: new Secrets(), toTerminal: () => {} });
}
