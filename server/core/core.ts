/** The domain's parts, wired once in main.ts and handed to every op. */
import type { Config } from "../config.js";
import type { Paths } from "../paths.js";
import type { Store } from "../store/store.js";
import type { Feed } from "./feed.js";
import type { Pushes } from "./pushes.js";
import type { Registry } from "./registry.js";

export interface ExitInfo {
  jobId: string;
  exitCode: number | null;
  signal: number | null;
  at?: string;
}

/** What the daemon needs of the pty host (server/pty/client.ts): jobs' terminals, held apart. */
export interface Terminals {
  spawn(spec: {
    jobId: string;
    file: string;
    args: string[];
    cwd: string;
    env: Record<string, string>;
    cols: number;
    rows: number;
  }): Promise<{ pid: number }>;
  write(jobId: string, data: string): Promise<unknown>;
  signal(jobId: string, signal: NodeJS.Signals): Promise<unknown>;
  list(): Promise<{ live: { jobId: string; pid: number }[]; exited: ExitInfo[] }>;
  forget(jobId: string): Promise<unknown>;
}

export interface Core {
  config: Config;
  paths: Paths;
  store: Store;
  registry: Registry;
  feed: Feed;
  pushes: Pushes;
  terminals: () => Promise<Terminals>;
  /** How long `stop` waits after SIGTERM before SIGKILL. */
  stopGraceMs: number;
  /** Ends the daemon (the `shutdown` op); the jobs keep running. */
  shutdown: () => void;
}
