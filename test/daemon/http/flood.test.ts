/**
 * No one without a token can starve the daemon (docs/http.md, "Connections"), against a real
 * daemon and a real flood: a separate process opens thousands of idle TCP connections to the
 * HTTP port and holds whatever stays open. Meanwhile the CLI, the owner's HTTP calls, new socket
 * clients and agents are all served, the daemon says it reached a limit, and its descriptors
 * stay clear of what the socket's connections need.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { agentProfile, CLI, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { type Flood, killFloods, startFlood } from "../../helpers/flood.js";
import { api } from "../../helpers/http.js";
import { RawClient } from "../../helpers/raw-client.js";

const run = promisify(execFile);

/** The attack as it was found: this machine's limit is 20000 descriptors, the flood 19,990. */
const ATTACK = 19_990;
const SOCKET_CONNECTIONS = 1024;
const LIMIT_REACHED = /limit reached: \d+ connections without a request with a token yet/;

let d: TestDaemon | undefined;
afterEach(async () => {
  await killFloods();
  await d?.cleanup();
  d = undefined;
});

const config = { agentProfiles: { agent: agentProfile() } };

/** The daemon's open descriptors at its busiest, sampled until `stop` is called. */
function watchDescriptors(pid: number): { most: () => number; stop: () => void } {
  let most = 0;
  const sample = () => {
    try {
      most = Math.max(most, fs.readdirSync(`/proc/${pid}/fd`).length);
    } catch {}
  };
  const timer = setInterval(sample, 50);
  return { most: () => most, stop: () => clearInterval(timer) };
}

let served = 0;

/** Everyone with a right to the daemon gets an answer: the CLI, the owner over HTTP, a new socket client, a new agent. */
async function expectServed(daemon: TestDaemon): Promise<void> {
  const ls = await run(process.execPath, [CLI, "ls", "--json"], { env: daemon.env });
  expect(JSON.parse(ls.stdout).rows).toBeInstanceOf(Array);

  const owner = await api(daemon, "list");
  expect(owner.status).toBe(200);

  const client = await RawClient.connect(daemon.socket);
  try {
    await client.ok("list");
    // A job's agent: a new process that connects to the socket, reports, takes its task and acks.
    const task = `served ${++served}`;
    const { job } = await client.ok("dispatch", { profile: "agent", task });
    await until(`${job.id}'s agent reporting "${task}"`, async () => {
      const [row] = (await client.ok("list", { id: job.id })).rows;
      return row.connected && row.summary === `did: ${task}`;
    });
  } finally {
    client.close();
  }
}

/** The flood is on and the daemon said so; the flood still holds connections of its own. */
async function floodUnderWay(daemon: TestDaemon, flood: Flood): Promise<void> {
  await until("the daemon saying a limit was reached", () => LIMIT_REACHED.test(daemon.output), 120_000);
  await until("the flood holding connections", () => flood.tally.open > 0, 120_000);
}

describe("a flood of connections without a token", () => {
  it("19,990 idle TCP connections to the HTTP port (the attack): the CLI, the owner's HTTP, the socket and agents are still served", async () => {
    d = await startDaemon({ config });
    const descriptors = watchDescriptors(d.pid);
    const flood = startFlood(d, ATTACK);
    try {
      await floodUnderWay(d, flood);
      await expectServed(d); // while the flood opens its connections and holds what it can
      await until("every connection of the flood tried", () => flood.tally.done, 300_000);
      expect(flood.tally).toMatchObject({ opened: ATTACK, failed: 0 });
      await expectServed(d); // while it holds the last it opened
    } finally {
      descriptors.stop();
    }
    // The socket's connections always had their descriptors.
    expect(descriptors.most()).toBeLessThan(20_000 - SOCKET_CONNECTIONS);
    await flood.kill();
    await expectServed(d);
  }, 600_000);

  it("from a limit of 2048 descriptors: says the caps it chose, and serves under a flood", async () => {
    d = await startDaemon({ config, wrap: ["prlimit", "--nofile=2048:2048"] });
    // 1024 for the socket and 256 for the rest are kept; HTTP gets 768, half of them unproven.
    expect(d.output).toMatch(
      /http: at most 768 connections, 384 of them before a request with a token \(of 2048 descriptors, 1280 are kept/,
    );
    const descriptors = watchDescriptors(d.pid);
    const flood = startFlood(d, 4000);
    try {
      await floodUnderWay(d, flood);
      await expectServed(d);
      await until("every connection of the flood tried", () => flood.tally.done, 300_000);
      expect(flood.tally).toMatchObject({ opened: 4000, failed: 0 });
      await expectServed(d);
    } finally {
      descriptors.stop();
    }
    expect(descriptors.most()).toBeLessThan(2048 - SOCKET_CONNECTIONS);
    await flood.kill();
    await expectServed(d);
  }, 300_000);
});
