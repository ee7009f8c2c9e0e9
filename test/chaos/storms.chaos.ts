/**
 * Storms: hundreds of agents reconnecting at once after a kill -9 of the daemon, each with a
 * reply waiting (no duplicate delivery, none missed, the daemon's memory bounded), and a 10 MB
 * line sent in the middle of it (only its own connection ends; the others are served).
 *
 * The ordinary suite covers the rest of the limits one at a time (test/daemon/bridge/limits.test.ts:
 * 1,024 connections and one more, a client that leaves 16 MiB unread, lines at 4 MiB).
 */
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { silentProfile } from "../helpers/jobs.js";
import { procEnv } from "../helpers/processes.js";
import { RawClient } from "../helpers/raw-client.js";
import { caseSeed, once, reportCase, SCALE } from "./chaos.js";

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

interface Agent {
  id: string;
  token: string;
  conn: RawClient | null;
}

async function speak(daemon: TestDaemon, a: Agent): Promise<RawClient> {
  for (;;) {
    const c = await RawClient.connect(daemon.socket).catch(() => null);
    if (c) {
      const r = await c
        .request("report", { id: a.id, token: a.token, report: { state: "working" } })
        .catch(() => null);
      if (r?.ok) return c;
      c.close();
    }
    await new Promise((res) => setTimeout(res, 20 + Math.random() * 80)); // backoff with jitter, as the clients do
  }
}

describe("storms", () => {
  it("agents reconnecting at once after a kill -9: each waiting reply delivered once; a 10 MB line meanwhile ends only its own connection", async () => {
    const seed = caseSeed(11);
    const count = Math.min(500, 100 * SCALE); // 100 in CI, 500 in a long run
    const daemon = await startDaemon({
      config: { agentProfiles: { silent: silentProfile({ command: ["sleep", "3600"] }) } },
    });
    d = daemon;
    const agents: Agent[] = [];
    for (let i = 0; i < count; i++) {
      const { job } = await once(daemon, "dispatch", { profile: "silent" });
      agents.push({ id: job.id, token: "", conn: null });
    }
    const rows = (await once(daemon, "list", {})).rows as { id: string; pid: number }[];
    for (const a of agents) {
      const pid = rows.find((r) => r.id === a.id)!.pid;
      a.token = await until(`${a.id}'s token`, () => procEnv(pid).ROOST_JOB_TOKEN);
    }
    const waiting = new Map<string, number>();
    for (const a of agents)
      waiting.set(a.id, (await once(daemon, "reply", { id: a.id, text: `for ${a.id}` })).seq);
    const rssBefore = rssMiB(daemon.pid);

    await daemon.kill("SIGKILL");
    await daemon.start();
    // The storm: every agent at once, with a 10 MB line from one more client in the middle.
    const storm = agents.map(async (a, i) => {
      if (i === Math.floor(count / 2)) {
        const big = await RawClient.connect(daemon.socket);
        big.write(Buffer.alloc(10 * 1024 * 1024, "x"));
        await big.closed;
      }
      a.conn = await speak(daemon, a);
    });
    await Promise.all(storm);
    const rssAfter = rssMiB(daemon.pid);
    for (const a of agents) {
      const seq = waiting.get(a.id)!;
      await a.conn!.event((e) => e.event === "deliver" && e.seq === seq, `${a.id}'s reply`);
    }
    // Once more after they all had theirs: still one each (nothing sent twice meanwhile).
    const witness = await RawClient.connect(daemon.socket);
    expect((await witness.request("list", {})).ok).toBe(true);
    for (const a of agents) {
      const got = a.conn!.events.filter((e) => e.event === "deliver").map((e) => e.seq);
      expect([a.id, got]).toEqual([a.id, [waiting.get(a.id)]]);
      a.conn!.close();
    }
    witness.close();
    reportCase("reconnect storm after a kill -9", seed, {
      agents: count,
      deliveredOnce: count,
      daemonRssMiB: { beforeKill: Math.round(rssBefore), afterStorm: Math.round(rssAfter) },
    });
    expect(rssAfter).toBeLessThan(rssBefore + 256); // bounded: not a copy per reconnect held
  });
});
