/**
 * The daemon's link to the pty host: connected on demand, and found again (with its jobs) if it
 * goes away. One connection at a time; a failed connect is tried again at the next need.
 */
import { PtyHostClient } from "../pty/client.js";
import { PROTOCOL_VERSION as PTY_PROTOCOL_VERSION } from "../pty/wire.js";
import type { Core, Terminals } from "./core.js";
import { findJobsAgain } from "./find-again.js";
import { onExit } from "./lifecycle.js";
import { onScreen } from "./screens.js";

export class HostLink {
  private host: Promise<PtyHostClient> | null = null;

  constructor(
    private readonly core: Core,
    private readonly home: string,
    /** True once the daemon stops: a host going away then is not looked for again. */
    private readonly stopping: () => boolean,
  ) {}

  terminals(): Promise<Terminals> {
    this.host ??= PtyHostClient.connect(this.home).then((client) => this.connected(client));
    this.host.catch(() => {
      this.host = null;
    });
    return this.host;
  }

  /** Closes the connection, once made, if there is one. */
  async close(): Promise<void> {
    if (this.host) (await this.host.catch(() => null))?.close();
  }

  private async connected(client: PtyHostClient): Promise<PtyHostClient> {
    const core = this.core;
    // A pty host from an older roost keeps its jobs; it may lack what this daemon asks of it.
    const { version } = await client.hello();
    if (version !== PTY_PROTOCOL_VERSION) {
      console.warn(
        `roost: the running pty host speaks version ${version}, this roost ${PTY_PROTOCOL_VERSION}: ` +
          "terminal views may fail until it is restarted (it ends by itself once no job runs)",
      );
    }
    client.on("exit", (info) => onExit(core, info));
    client.on("screen", (state) => onScreen(core, state));
    client.on("output", (out) => core.viewers.output(out.jobId, out.data, out.seq));
    client.on("close", () => {
      this.host = null;
      if (this.stopping()) return;
      // Said in the daemon's log: the jobs it held end with it, and their rows say so.
      console.error("roost: the pty host went away; starting another and finding the jobs again");
      void findJobsAgain(core, { hostLost: true }).catch((err) =>
        console.error("roost: pty host lost:", err),
      );
    });
    return client;
  }
}
