/**
 * The daemon's link to the pty host: connected on demand, and found again (with its jobs) if it
 * goes away. One connection at a time; a failed connect is tried again at the next need.
 */
import { PtyHostClient } from "../../pty/client.js";
import { PROTOCOL_VERSION as PTY_PROTOCOL_VERSION } from "../../pty/wire.js";
import type { Core, Terminals } from "../core.js";
import { onExit } from "../jobs/index.js";
import { messageOf } from "../text.js";
import { findJobsAgain } from "./find-again.js";
import { onResources } from "./resources.js";
import { onScreen } from "./screens.js";

/** How long the search for a lost host's jobs waits before it tries again: doubling, up to a cap. */
const FIND_AGAIN_FIRST_MS = 250;
const FIND_AGAIN_MAX_MS = 5000;

export class HostLink {
  private host: Promise<PtyHostClient> | null = null;
  /** The search for the jobs of a host that went away, while under way (see `lost`). */
  private finding: Promise<void> | null = null;
  /** Another host went away during that search: it goes round once more. */
  private again = false;

  constructor(
    private readonly core: Core,
    private readonly home: string,
    /** True once the daemon stops: a host going away then is not looked for again. */
    private readonly stopping: () => boolean,
  ) {}

  terminals(): Promise<Terminals> {
    if (!this.host) {
      // Each connection forgets itself only while it is the link's: one that failed must not
      // drop the next, made meanwhile by the search for its jobs.
      const host: Promise<PtyHostClient> = PtyHostClient.connect(this.home).then((client) =>
        this.connected(client, () => this.host === host),
      );
      this.host = host;
      host.catch(() => {
        if (this.host === host) this.host = null;
      });
    }
    return this.host;
  }

  /** Closes the connection, once made, if there is one. */
  async close(): Promise<void> {
    if (this.host) (await this.host.catch(() => null))?.close();
  }

  private async connected(client: PtyHostClient, current: () => boolean): Promise<PtyHostClient> {
    const core = this.core;
    client.on("exit", (info) => onExit(core, info));
    client.on("screen", (state) => onScreen(core, state));
    client.on("resources", (pass) => onResources(core, pass));
    client.on("output", (out) => core.viewers.output(out.jobId, out.data, out.seq));
    // Heard before the hello below: a host that dies while it is answered is lost like any other.
    client.on("close", () => {
      if (!current()) return;
      this.host = null;
      if (this.stopping()) return;
      // Said in the daemon's log: the jobs it held end with it, and their rows say so.
      console.error("roost: the pty host went away; starting another and finding the jobs again");
      this.lost();
    });
    // A pty host from an older roost keeps its jobs; it may lack what this daemon asks of it.
    const { version } = await client.hello();
    if (version !== PTY_PROTOCOL_VERSION) {
      console.warn(
        `roost: the running pty host speaks version ${version}, this roost ${PTY_PROTOCOL_VERSION}: ` +
          "terminal views may fail until it is restarted (it ends by itself once no job runs)",
      );
    }
    return client;
  }

  /**
   * A host went away: the jobs it held are looked for on the next one (find-again.ts), and the
   * search is tried again until it goes through. A host killed while the next was starting fails
   * the search; given up then, its jobs would stay "running" with no process and no host, every
   * reply to them saved but never taken (found by the chaos suite's restarts at scale).
   */
  private lost(): void {
    if (this.finding) {
      this.again = true;
      return;
    }
    // From the first loss: a reply since then came to a job that had ended (find-again.ts).
    this.finding = this.findUntilDone(new Date().toISOString()).finally(() => {
      this.finding = null;
    });
  }

  private async findUntilDone(hostLostAt: string): Promise<void> {
    for (let wait = FIND_AGAIN_FIRST_MS; !this.stopping(); wait = Math.min(2 * wait, FIND_AGAIN_MAX_MS)) {
      this.again = false;
      try {
        await findJobsAgain(this.core, { hostLostAt });
        if (!this.again) return;
      } catch (err) {
        console.error(`roost: pty host lost: ${messageOf(err)}; looking for its jobs again in ${wait} ms`);
        await new Promise((r) => setTimeout(r, wait).unref()); // never what keeps a stopping daemon up
      }
    }
  }
}
