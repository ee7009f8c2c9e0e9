/**
 * The connection flood (test/fixtures/flood.mjs) as a separate process, so that its thousands of
 * descriptors are its own and not the test worker's; killed by pid at `killFloods`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { FIXTURES, type Roost } from "./daemon.js";

export interface FloodTally {
  /** Connections made (the server accepted them, or the kernel did for it). */
  opened: number;
  /** Made and still open: held, idle. */
  open: number;
  /** Made, then closed by the server. */
  closed: number;
  /** Never made. */
  failed: number;
  /** Every connection has been tried. */
  done: boolean;
  errors: Record<string, number>;
}

export class Flood {
  tally: FloodTally = { opened: 0, open: 0, closed: 0, failed: 0, done: false, errors: {} };
  private buffer = "";

  constructor(readonly proc: ChildProcess) {
    proc.stdout!.setEncoding("utf8");
    proc.stdout!.on("data", (chunk: string) => {
      this.buffer += chunk;
      const nl = this.buffer.lastIndexOf("\n");
      if (nl < 0) return;
      const last = this.buffer.slice(0, nl).split("\n").pop()!;
      this.buffer = this.buffer.slice(nl + 1);
      this.tally = JSON.parse(last);
    });
  }

  /** Kills the flood (its connections close with it) and waits for its exit. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGKILL");
    await exited;
  }
}

const floods: Flood[] = [];

/** Opens `count` idle connections to the daemon's HTTP port, `concurrent` at a time, and holds them. */
export function startFlood(d: Roost, count: number, concurrent = 500): Flood {
  const port = new URL(d.url).port;
  const proc = spawn(
    process.execPath,
    [path.join(FIXTURES, "flood.mjs"), port, String(count), String(concurrent)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const flood = new Flood(proc);
  floods.push(flood);
  return flood;
}

export async function killFloods(): Promise<void> {
  await Promise.all(floods.splice(0).map((f) => f.kill()));
}
