/**
 * The reply queue against a model (fast-check commands): random replies, acks, disconnects,
 * reconnects, clean restarts and kill -9s of the daemon, and after each what the agent must see.
 *
 * The model is what the protocol promises (docs/protocol.md, "ack"): seqs 1, 2, 3… with no
 * gap and none given twice, even across a kill -9; on a connection the agent gets every reply
 * after the last it acked, in order, then each new one as it comes; an ack answered is kept
 * across reconnects and clean restarts. Acks are written lazily, so after a kill -9 the daemon
 * may send again replies acked since the last clean stop (an agent's agent.json skips them):
 * the model allows a redelivery from any seq after that floor, and no other, and learns from
 * it where the daemon stands.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { rawAgent, silentProfile } from "../helpers/jobs.js";
import { RawClient } from "../helpers/raw-client.js";
import { caseSeed, faultPlan, once, reportCase } from "./chaos.js";

interface Model {
  lastSeq: number;
  /** The highest seq the agent acked (and had answered). */
  acked: number;
  /**
   * What the daemon holds as acked: known after an ack, a connection's deliveries or a clean
   * restart; unknown (null) after a kill -9, when it is anywhere from `ackFloor` to `acked`.
   */
  daemonAck: number | null;
  /** Acked and on disk (a clean stop wrote it): never sent again, whatever happens. */
  ackFloor: number;
  connected: boolean;
}

interface Real {
  daemon: TestDaemon;
  id: string;
  token: string;
  agent: RawClient | null;
}

const deliveredOn = (agent: RawClient, id: string) =>
  agent.events.filter((e) => e.event === "deliver" && e.id === id).map((e) => e.seq as number);

async function connectAgent(r: Real): Promise<void> {
  const agent = await RawClient.connect(r.daemon.socket);
  await agent.ok("hello", { protocol: 1, agent: { name: "model", version: "0" }, capabilities: ["replies"] });
  await agent.ok("report", { id: r.id, token: r.token, report: { state: "working" } });
  r.agent = agent;
}

/** Waits until the agent's connection has had `seq` delivered, then returns all it had. */
function receivedUpTo(r: Real, seq: number): Promise<number[]> {
  const agent = r.agent!;
  return until(`the delivery of seq ${seq}`, () => {
    const got = deliveredOn(agent, r.id);
    return got.includes(seq) ? got : undefined;
  });
}

const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

class Reply implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const { seq } = await once(r.daemon, "reply", { id: r.id, text: `reply ${m.lastSeq + 1}` });
    expect(seq).toBe(m.lastSeq + 1); // no gap, none given twice, a kill -9 or not
    m.lastSeq = seq;
    if (m.connected) expect((await receivedUpTo(r, seq)).at(-1)).toBe(seq);
  }
  toString = () => "reply";
}

class Ack implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Model) => m.connected && m.lastSeq > m.acked;
  async run(m: Model, r: Real): Promise<void> {
    const seq = m.acked + 1 + (this.pick % (m.lastSeq - m.acked));
    await r.agent!.ok("ack", { id: r.id, token: r.token, seq });
    m.acked = seq;
    m.daemonAck = seq; // cumulative: whatever it had lost below is acked again
  }
  toString = () => `ack(+${this.pick})`;
}

class Disconnect implements fc.AsyncCommand<Model, Real> {
  check = (m: Model) => m.connected;
  async run(m: Model, r: Real): Promise<void> {
    r.agent!.close();
    await r.agent!.closed;
    r.agent = null;
    m.connected = false;
  }
  toString = () => "disconnect";
}

class Connect implements fc.AsyncCommand<Model, Real> {
  check = (m: Model) => !m.connected;
  async run(m: Model, r: Real): Promise<void> {
    await connectAgent(r);
    m.connected = true;
    // What waits is sent before the report's answer (agents.ts): all of it is here already.
    const got = deliveredOn(r.agent!, r.id);
    if (m.daemonAck !== null) expect(got).toEqual(range(m.daemonAck + 1, m.lastSeq));
    else {
      // From some seq after the floor (an ack since the last clean stop may be lost), to the last.
      const from = got[0] ?? m.lastSeq + 1;
      expect(from).toBeGreaterThan(m.ackFloor);
      expect(from).toBeLessThanOrEqual(m.acked + 1);
      expect(got).toEqual(range(from, m.lastSeq));
      m.daemonAck = from - 1;
    }
  }
  toString = () => "connect";
}

class Restart implements fc.AsyncCommand<Model, Real> {
  constructor(readonly hard: boolean) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    await r.daemon.restart(this.hard ? "SIGKILL" : "SIGTERM");
    if (r.agent) {
      await r.agent.closed;
      r.agent = null;
    }
    m.connected = false;
    if (this.hard) m.daemonAck = null;
    else if (m.daemonAck !== null) m.ackFloor = m.daemonAck; // a clean stop writes the acks it has
  }
  toString = () => (this.hard ? "kill -9" : "restart");
}

const commands = [
  fc.constant(new Reply()),
  fc.constant(new Reply()),
  fc.nat(20).map((n) => new Ack(n)),
  fc.constant(new Disconnect()),
  fc.constant(new Connect()),
  fc.boolean().map((hard) => new Restart(hard)),
];

describe("the reply queue against its model", () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ config: { agentProfiles: { silent: silentProfile() } } });
  });
  afterAll(async () => daemon?.cleanup());

  it("replies, acks, disconnects and restarts at random: the agent sees what the model says", async () => {
    const seed = caseSeed(6);
    const runs = faultPlan(20).count;
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (cmds) => {
        // A job of its own for each run: the model starts empty.
        const { job } = await once(daemon, "dispatch", { profile: "silent" });
        const hub = await RawClient.connect(daemon.socket);
        const { agent, token } = await rawAgent(daemon, hub, job.id);
        hub.close();
        const real: Real = { daemon, id: job.id, token, agent };
        const model: Model = { lastSeq: 0, acked: 0, daemonAck: 0, ackFloor: 0, connected: true };
        steps += [...cmds].length;
        try {
          await fc.asyncModelRun(() => ({ model, real }), cmds);
        } finally {
          real.agent?.close();
          await once(daemon, "rm", { id: job.id, force: true }).catch(() => {});
        }
      }),
      { seed, numRuns: runs, endOnFailure: true },
    );
    reportCase("the reply queue against its model", seed, { runs, commands: steps });
  });
});
