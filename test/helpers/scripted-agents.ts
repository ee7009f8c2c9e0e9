/**
 * What the two clients' peer tests share (agent-peers.test.ts for pi-roost/agent,
 * python-peers.test.ts for the Python client): a daemon whose profiles run a client's scripted
 * agent (a fixture that logs what it handled to JSON-lines files in its job's directory, and calls
 * the session op a reply names), and those agents' jobs.
 */
import path from "node:path";
import { afterEach } from "vitest";
import { type Roost, startDaemon, type TestDaemon, until } from "./daemon.js";
import { lines, untilRow } from "./jobs.js";
import type { RawClient } from "./raw-client.js";

/** A client's scripted agent, and what of it differs from the other client's. */
export interface ScriptedClient {
  /** The client, in the tests' titles. */
  name: string;
  /** Its handlers' names, in the tests' titles. */
  handlers: { item: string; reply: string };
  /** The fixture's command line. */
  command: string[];
  /** The fixture's environment that gives it an item handler. */
  itemsEnv: Record<string, string>;
  /** The capabilities its row says, with an item handler and without. */
  capabilities: { items: string[]; plain: string[] };
  /**
   * How a `taker` (with an item handler) finishes item 3, saves its seq and exits (code 7) before
   * its ack: its environment, and item 3's text.
   */
  losesAck: { env: Record<string, string>; text: string };
}

export interface ScriptedAgent {
  id: string;
  pid: number;
  file: (name: string) => string;
  /** What the agent logged to `name` in its job's directory. */
  log: (name: string) => any[];
}

export function scriptedAgent(d: Roost, job: { id: string; pid: number }): ScriptedAgent {
  const file = (f: string) => path.join(d.home, "jobs", job.id, f);
  return { id: job.id, pid: job.pid, file, log: (f) => lines(file(f)) };
}

export interface ScriptedDaemon {
  d: TestDaemon;
  c: RawClient;
  /** A scripted agent dispatched as `name`, its task handled and acked. */
  agent: (profile: "items" | "plain" | "taker", name: string) => Promise<ScriptedAgent>;
}

/**
 * A daemon for each test that asks, killed after it, whose profiles run the client's scripted
 * agent: `items` (an item handler), `plain` (none), `taker` (an item handler that loses an ack).
 */
export function scriptedDaemonPerTest(client: ScriptedClient): () => Promise<ScriptedDaemon> {
  let current: TestDaemon | undefined;
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  const profile = (env: Record<string, string>) => ({
    command: client.command,
    task: "type",
    protocol: true,
    env,
  });
  return async () => {
    const d = await startDaemon({
      config: {
        agentProfiles: {
          items: profile(client.itemsEnv),
          plain: profile({}),
          taker: profile(client.losesAck.env),
        },
      },
    });
    current = d;
    const c = await d.client();
    const agent = async (profileName: string, name: string) => {
      const { job } = await c.ok("dispatch", {
        profile: profileName,
        task: `task of ${name}`,
        name,
        cwd: "/tmp",
      });
      const a = scriptedAgent(d, job);
      await untilRow(
        c,
        a.id,
        "its task handled and acked",
        (r) => r.pending === 0 && a.log("handled.jsonl").length === 1,
      );
      return a;
    };
    return { d, c, agent };
  };
}

/** Has the agent call a session op (a reply it understands) and waits for its answer in calls.jsonl. */
export async function call(c: RawClient, a: ScriptedAgent, text: string): Promise<any> {
  const before = a.log("calls.jsonl").length;
  await c.ok("reply", { id: a.id, text });
  return until(`${a.id}: ${text}`, () => a.log("calls.jsonl")[before]);
}

/** An item's text without its envelope (the first line). */
export const body = (text: string) => text.slice(text.indexOf("\n") + 1);
