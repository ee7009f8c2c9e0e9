/**
 * The sandboxed jobs' own sockets (docs/security.md): one listening socket per sandboxed job, at
 * its `sandbox/roost.sock`, whose connections are bound to that job (a hub op, another job's id or
 * token: refused). Made when the job starts and again by a daemon that starts while the job runs
 * (at the same path, so that its agent reconnects); closed when the job is removed.
 */
import fs from "node:fs";
import type { JobSockets as JobSocketsApi } from "../server/core/core.js";
import { sandboxSocket } from "../server/core/jobs/sandbox.js";
import type { Paths } from "../server/paths.js";
import type { RunOp } from "./connection.js";
import { Bridge, type BridgeOptions } from "./server.js";

/** Fewer connections than the owner's socket: one job's agent, its tool servers, its children's asks. */
const MAX_CONNECTIONS = 64;

export class JobSockets implements JobSocketsApi {
  private readonly listening = new Map<string, Promise<Bridge>>();

  constructor(
    private readonly paths: Paths,
    private readonly run: RunOp,
    private readonly opts: Pick<BridgeOptions, "onClosed"> = {},
  ) {}

  open(jobId: string): Promise<void> {
    let opening = this.listening.get(jobId);
    if (!opening) {
      opening = this.listen(jobId);
      this.listening.set(jobId, opening);
      opening.catch(() => this.listening.delete(jobId));
    }
    return opening.then(() => {});
  }

  private async listen(jobId: string): Promise<Bridge> {
    const file = sandboxSocket(this.paths, jobId);
    // What a daemon before this one left (its socket file outlives it); nothing of the job's:
    // the job cannot write this directory.
    fs.rmSync(file, { force: true });
    const bridge = new Bridge(this.run, { ...this.opts, boundTo: jobId, maxConnections: MAX_CONNECTIONS });
    await bridge.listen(file);
    return bridge;
  }

  async close(jobId: string): Promise<void> {
    const opening = this.listening.get(jobId);
    if (!opening) return;
    this.listening.delete(jobId);
    const bridge = await opening.catch(() => null);
    await bridge?.close();
    fs.rmSync(sandboxSocket(this.paths, jobId), { force: true });
  }

  /** Every socket closed (the daemon stops); their files stay for the next daemon to make again. */
  async closeAll(): Promise<void> {
    const all = [...this.listening.values()];
    this.listening.clear();
    await Promise.all(all.map((o) => o.then((b) => b.close()).catch(() => {})));
  }
}
