/**
 * A call rides out a restart (docs/protocol.md, "Clients"): the agent client (pi-roost/agent, which
 * pi's extension speaks through) and `roost mcp`'s session (ToolSession, on roost's socket with
 * `speak_for`), and the controllers' DaemonClient, wait for a daemon that was kill -9'd and started again, and send the request again
 * with the same `requestId`: the call resolves with one child, one message, one task, and never
 * `disconnected`. The daemon is a real process; what it had or had not done when it died is made
 * certain by stopping it (SIGSTOP: the request never read) or its pty host (the child made and
 * saved, its start never answered) before the kill.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RoostAgent, ToolSession } from "../../../sdk/ts/agent/index.js";
import { DaemonClient } from "../../../sdk/ts/client/index.js";
import { INERT, tokenOf } from "../../helpers/board.js";
import { startDaemon, type TestDaemon } from "../../helpers/daemon.js";
import { ptyHostPid } from "../../helpers/processes.js";
import type { RawClient } from "../../helpers/raw-client.js";

let d: TestDaemon;
let hub: RawClient;
const agents: RoostAgent[] = [];

beforeAll(async () => {
  d = await startDaemon({ config: { agentProfiles: { inert: INERT } } });
  hub = await d.client();
});
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close({ timeoutMs: 500 })));
  await d?.cleanup();
});

/** An inert job, and an agent client in this process speaking for it. */
async function parent(name: string): Promise<{ id: string; agent: RoostAgent; token: string }> {
  const { job } = await hub.ok("dispatch", { profile: "inert", name });
  const token = await tokenOf(hub, job.id);
  const agent = new RoostAgent(
    { id: job.id, token, socket: d.socket, dir: null },
    { name: "ride-out", version: "1", onReply: () => {}, onItem: () => {}, log: () => {} },
  );
  agents.push(agent);
  agent.report({ state: "working", summary: name });
  await agent.peers(); // connected
  return { id: job.id, agent, token };
}

/**
 * `send` (what the test calls) made while the daemon is stopped: written, never read; then the
 * daemon kill -9'd. Its promise, settled either way.
 */
async function inFlightAtKill<T>(send: () => Promise<T>): Promise<{ settled: Promise<T | Error> }> {
  process.kill(d.pid, "SIGSTOP");
  const settled = send().catch((err: Error) => err);
  await new Promise((r) => setTimeout(r, 50)); // pacing only: the request is on its way
  await d.kill("SIGKILL");
  return { settled }; // wrapped: an async function's promise would wait for it
}

async function restarted(): Promise<void> {
  await d.start();
  hub = await d.client();
}

const childrenOf = async (id: string) =>
  (await hub.ok("list")).rows.filter((r: any) => r.parent === id).map((r: any) => r.id);

describe("the agent client", () => {
  it("a spawn whose child was made when roost died: sent again, answered the same child (duplicate), one child", async () => {
    const p = await parent("ride-parent");
    const sub = await d.client();
    await sub.ok("subscribe");
    // The pty host stopped: the child is made and saved, but its start is never answered.
    const host = ptyHostPid(d.home)!;
    process.kill(host, "SIGSTOP");
    const spawning = p.agent
      .spawn({ profile: "inert", task: "wait", name: "ride-child" })
      .catch((err: Error) => err);
    try {
      await sub.event((e) => e.event === "row" && e.row.parent === p.id, "the child's row");
      await d.kill("SIGKILL");
    } finally {
      process.kill(host, "SIGCONT");
    }
    await restarted();
    const got = await spawning;
    expect(got).not.toBeInstanceOf(Error);
    const { job, duplicate } = got as { job: { id: string; parent: string }; duplicate?: boolean };
    expect([job.parent, duplicate]).toEqual([p.id, true]);
    expect(await childrenOf(p.id)).toEqual([job.id]);
  });

  it("a spawn roost never read before it died: sent again once it is back, one child, not a duplicate", async () => {
    const p = await parent("ride-parent-2");
    const { settled: spawning } = await inFlightAtKill(() =>
      p.agent.spawn({ profile: "inert", task: "wait", name: "ride-child-2" }),
    );
    await restarted();
    const got = await spawning;
    expect(got).not.toBeInstanceOf(Error);
    const { job, duplicate } = got as { job: { id: string }; duplicate?: boolean };
    expect(duplicate).toBeUndefined();
    expect(await childrenOf(p.id)).toEqual([job.id]);
  });

  it("a send and a task add in flight across a kill -9: each answered, made once", async () => {
    const p = await parent("ride-sender");
    const q = await parent("ride-receiver");
    const { settled: both } = await inFlightAtKill(() =>
      Promise.all([p.agent.send(q.id, "across the restart"), p.agent.addTask("made across the restart")]),
    );
    await restarted();
    const answers = await both;
    expect(answers).not.toBeInstanceOf(Error);
    const [sent, added] = answers as [any, any];
    expect(sent.outcome).toMatch(/^(delivered|queued)$/); // queued while the receiver is not back yet
    // The same request id again (a resend whose first landed): the first's answer, nothing sent twice.
    const first = await p.agent.send(q.id, "once", { requestId: "ride-send-1" });
    const again = await p.agent.send(q.id, "once", { requestId: "ride-send-1" });
    expect([first.duplicate, again.duplicate, again.to.id]).toEqual([undefined, true, q.id]);
    const { tasks } = await hub.ok("task", { action: "list" });
    expect(tasks.filter((t: any) => t.title === "made across the restart").map((t: any) => t.id)).toEqual([
      added.task!.id,
    ]);
    const { events } = await hub.ok("events", { involving: q.id, limit: 100 });
    for (const text of ["across the restart", "once"])
      expect(events.filter((e: any) => e.kind === "message" && e.text === text)).toHaveLength(1);
  });
});

describe("roost mcp's session (speak_for on roost's socket)", () => {
  it("a task add in flight across a kill -9: answered once roost is back, one task", async () => {
    const p = await parent("ride-mcp");
    const tools = new ToolSession(d.socket, { op: "speak_for", args: { id: p.id, token: p.token } });
    try {
      await tools.tasks(); // connected, speaking for the job
      const { settled: adding } = await inFlightAtKill(() => tools.addTask("added by a tool server"));
      await restarted();
      const added = await adding;
      expect(added).not.toBeInstanceOf(Error);
      const { tasks } = await hub.ok("task", { action: "list" });
      expect(tasks.filter((t: any) => t.title === "added by a tool server").map((t: any) => t.id)).toEqual([
        (added as { task: { id: number } }).task.id,
      ]);
    } finally {
      tools.close();
    }
  });
});

describe("the controllers' client (DaemonClient)", () => {
  it("a dispatch with a requestId in flight across a kill -9: answered once roost is back, one job", async () => {
    const client = new DaemonClient({ socket: d.socket });
    try {
      await client.whoami(); // connected
      const { settled: dispatching } = await inFlightAtKill(() =>
        client.dispatch({ profile: "inert", name: "ride-dispatched", requestId: "ride-dispatch-1" }),
      );
      await restarted();
      const got = await dispatching;
      expect(got).not.toBeInstanceOf(Error);
      const { rows } = await hub.ok("list");
      expect(rows.filter((r: any) => r.name === "ride-dispatched").map((r: any) => r.id)).toEqual([
        (got as { job: { id: string } }).job.id,
      ]);
    } finally {
      client.close();
    }
  });
});
