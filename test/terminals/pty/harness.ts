// For tests of the built pty host (dist/server/pty/host.js, so build first): a fresh home per test,
// and every host and job a test started killed by pid after it.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, beforeEach } from "vitest";
import { PtyHostClient } from "../../../server/pty/client.js";
import type { JobExit, ScreenState, SpawnSpec } from "../../../server/pty/wire.js";

export { isAlive, sleep, until } from "../../helpers/processes.js";

export const hostScript = fileURLToPath(new URL("../../../dist/server/pty/host.js", import.meta.url));
export const distClient = fileURLToPath(new URL("../../../dist/server/pty/client.js", import.meta.url));

// Hosts this test process spawned, found via /proc: a host that lost a start-up race may still be
// booting when a test ends, and it never told anyone its pid.
function spawnedHosts(): number[] {
  return fs.readdirSync("/proc").flatMap((entry) => {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      return ppid === process.pid && cmd.includes(hostScript) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

export interface Harness {
  /** This test's ROOST_HOME. */
  home(): string;
  /** A client of this test's host (started if none runs); `requestMs`: how long a request waits. */
  connect(requestMs?: number): Promise<PtyHostClient>;
  /** Spawns a job in home with a small environment, 80x24 unless `extra` says otherwise. */
  start(
    c: PtyHostClient,
    jobId: string,
    file: string,
    args: string[],
    extra?: Partial<SpawnSpec>,
  ): Promise<number>;
  /** Kill this pid (and its group) after the test. */
  track(pid: number): void;
}

/** Registers the hooks of a describe block that runs the built host. */
export function useHost(): Harness {
  let home = "";
  let clients: PtyHostClient[] = [];
  let pids: number[] = [];

  beforeAll(() => {
    if (!fs.existsSync(hostScript)) throw new Error(`${hostScript} is missing: run npm run build`);
  });

  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-pty-"));
  });

  afterEach(() => {
    for (const c of clients) c.close();
    const pidFile = path.join(home, "pty.pid");
    if (fs.existsSync(pidFile)) pids.push(Number(fs.readFileSync(pidFile, "utf8")));
    pids.push(...spawnedHosts());
    for (const pid of pids) {
      if (!Number.isInteger(pid) || pid <= 1) continue; // kill(0 or -1) would hit far more than ours
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    fs.rmSync(home, { recursive: true, force: true });
    clients = [];
    pids = [];
  });

  return {
    home: () => home,
    async connect(requestMs?: number) {
      const c = await PtyHostClient.connect(home, { hostScript, ...(requestMs ? { requestMs } : {}) });
      clients.push(c);
      pids.push((await c.hello()).pid);
      return c;
    },
    async start(c, jobId, file, args, extra = {}) {
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home };
      const spec = { jobId, file, args, cwd: home, env, cols: 80, rows: 24, ...extra };
      const { pid } = await c.spawn(spec);
      pids.push(pid);
      return pid;
    },
    track: (pid) => pids.push(pid),
  };
}

export function nextExit(c: PtyHostClient, jobId: string): Promise<JobExit> {
  return new Promise((resolve) => {
    const on = (e: JobExit) => {
      if (e.jobId !== jobId) return;
      c.off("exit", on);
      resolve(e);
    };
    c.on("exit", on);
  });
}

/** Every screen event of a job, as they come. */
export function screenEvents(c: PtyHostClient, jobId: string): ScreenState[] {
  const seen: ScreenState[] = [];
  c.on("screen", (s) => {
    if (s.jobId === jobId) seen.push(s);
  });
  return seen;
}

/** A viewer's terminal: what a client draws from a snapshot and the output after it. */
export { TestScreen as ViewerScreen } from "../../helpers/screen.js";
