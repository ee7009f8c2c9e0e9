/**
 * A foreground pi (docs/protocol.md, `peer_register`): a pi the user runs in a terminal of their
 * own becomes a session with a row (`kind: "foreground"`) while its connection lives. The same
 * session key gets the same id back. When the connection closes the row waits a grace period
 * (`PI_ROOST_FG_CLAIM_GRACE_MS`, 5 s) for the pi to come back, then goes `exited`.
 */
import { LIMITS, type OpArgs, type OpResult, RoostError } from "../../../sdk/ts/protocol/index.js";
import { userHome } from "../../paths.js";
import type { JobRecord } from "../../store/records.js";
import type { Core } from "../core.js";
import { ROOST } from "../feed.js";
import type { LiveJob } from "../jobs/index.js";
import {
  type AgentConnection,
  applyHello,
  checkName,
  ended,
  isEnded,
  newJobRecord,
  sendPending,
} from "../jobs/index.js";

export class Foreground {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** Its timers alone are its own: what it registers and ends is the core's, handed to each call. */
  constructor(readonly graceMs: number) {}

  /** `peer_register`: the connection becomes the session's (a new row, or the one its key had). */
  async register(
    core: Core,
    conn: AgentConnection,
    args: OpArgs<"peer_register">,
  ): Promise<OpResult<"peer_register">> {
    // A sandboxed job's socket speaks for that job: a session registered through it would be a way out.
    if (conn.boundTo !== null)
      throw new RoostError(
        "unsupported",
        `this socket is ${conn.boundTo}'s alone (its sandbox's): it registers no other session`,
      );
    const name = checkName(args.name);
    const known = args.session ? core.store.jobForSessionKey(args.session) : null;
    let job = known ? core.registry.find(known) : undefined;
    if (conn.jobId !== null && conn.jobId !== job?.rec.id)
      throw new RoostError(
        "bad_request",
        `this connection speaks for ${conn.jobId}; open another one to register`,
      );
    if (job) {
      this.cancel(job.rec.id);
      Object.assign(job.rec, { life: "running", exitCode: null, endedAt: null, userName: name });
      job.rec.pid = args.pid ?? null;
      if (args.cwd) job.rec.launch = { ...job.rec.launch, cwd: args.cwd };
    } else {
      const order = core.registry.topOrder();
      const { job: rec } = core.store.createJob(
        (num) => this.record(`j${num}`, name, order, args, userHome(core.env)),
        null,
      );
      job = core.registry.add(rec, 0);
      core.feed.record(
        rec.id,
        "start",
        `a foreground pi registered${args.pid ? ` (pid ${args.pid})` : ""}`,
        ROOST,
      );
    }
    conn.session = true;
    conn.jobId = job.rec.id;
    job.link = conn.link;
    // A hello said before it is this session's, as a report's connection takes its hello.
    applyHello(job, conn);
    core.registry.changed(job, true);
    sendPending(core, job);
    await core.store.synced(); // its row on disk before its id is given
    return { id: job.rec.id, token: job.rec.token };
  }

  /** Its connection closed: the row goes `exited` after the grace, unless the pi is back. */
  disconnected(core: Core, job: LiveJob): void {
    this.cancel(job.rec.id);
    const timer = setTimeout(() => {
      this.timers.delete(job.rec.id);
      if (core.registry.find(job.rec.id) !== job || job.link !== null || isEnded(job)) return;
      ended(core, job, 0, null);
    }, this.graceMs);
    timer.unref();
    this.timers.set(job.rec.id, timer);
  }

  private cancel(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  private record(
    id: string,
    name: string,
    order: number,
    args: OpArgs<"peer_register">,
    home: string,
  ): JobRecord {
    return newJobRecord({
      id,
      profile: "foreground",
      launch: { command: [], cwd: args.cwd ?? home, env: {}, task: "type", protocol: true },
      userName: name,
      defaultName: name,
      order,
      life: "running",
      pid: args.pid ?? null,
      kind: "foreground",
      sessionKey: args.session ?? null,
    });
  }
}

/** The grace a foreground pi's row waits: PI_ROOST_FG_CLAIM_GRACE_MS (the spec's name), else 5 s. */
export function foregroundGraceMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.PI_ROOST_FG_CLAIM_GRACE_MS || Number.NaN);
  return Number.isFinite(ms) && ms >= 0 ? ms : LIMITS.foregroundGraceMs;
}
