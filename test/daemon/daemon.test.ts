/**
 * The agent protocol end to end, through daemon restarts: the agent process lives on, reconnects,
 * says hello, reports, gets its pending replies again and the next reply once, its seq continuing.
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { heldLine } from "../../server/stalls.js";
import {
  agentProfile,
  answers,
  CLI,
  daemonRefusal,
  FIXTURES,
  isAlive,
  sleep,
  startDaemon,
  type TestDaemon,
  until,
} from "../helpers/daemon.js";
import {
  ackStored,
  handled,
  lines,
  row as rowOf,
  silentProfile,
  stopRunningJobs,
  untilRow,
} from "../helpers/jobs.js";

// The conformance run's clients (docs/protocol.md, "Clients"): a scripted agent on each.
const clients = {
  typescript: [process.execPath, path.join(FIXTURES, "sdk-agent.mjs")],
  python: ["python3", path.join(FIXTURES, "py_agent.py")],
};

// One daemon for the file, with a profile for each of its tests' agents. The tests that restart
// it (most of them: the restart is what they test) restart this one; each works on jobs it
// dispatched itself, and whatever it left running is stopped after it. A test that failed with
// the daemon down has it started again for the next.
let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon({
    config: {
      agentProfiles: {
        agent: agentProfile(),
        "agent-5ms": agentProfile({ env: { AGENT_HANDLE_MS: "5" } }),
        ...Object.fromEntries(
          Object.entries(clients).map(([client, command]) => [
            client,
            { command, task: "type", protocol: true },
          ]),
        ),
      },
    },
  });
});
afterAll(async () => d?.cleanup());
afterEach(async () => {
  await stopRunningJobs(d);
});

async function startAgent() {
  const c = await d.client();
  const { job } = await c.ok("dispatch", { profile: "agent", task: "task one", cwd: "/tmp" });
  const dir = path.join(d.home, "jobs", job.id);
  await until(
    "the task handled and acked",
    async () => (await rowOf(c, job.id)).pending === 0 && lines(path.join(dir, "handled.jsonl")).length === 1,
  );
  return { c, id: job.id as string, pid: job.pid as number, dir };
}

describe("the daemon restarted under a running protocol agent", () => {
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`${signal}: the agent lives on, reconnects, and takes its pending and next replies once`, async () => {
      const { id, pid, dir } = await startAgent();
      await d.kill(signal);
      expect(isAlive(pid)).toBe(true);
      // While the daemon is down nothing can be sent; once it is back, a reply saved before the
      // agent reconnects is pending and delivered on its new connection.
      await d.start();
      const c = await d.client();
      expect((await c.ok("reply", { id, text: "after restart" })).seq).toBe(2);
      await until("reply 2 handled", () => lines(path.join(dir, "handled.jsonl")).length === 2);
      const row = await until("the row connected again", async () => {
        const r = await rowOf(c, id);
        return r.connected && r.pending === 0 ? r : null;
      });
      expect(row.pid).toBe(pid);
      expect(row.life).toBe("running");
      expect(row.agent).toEqual({ name: "test-agent", version: "1.0" });
      expect((await c.ok("reply", { id, text: "next" })).seq).toBe(3);
      await until("reply 3 handled", () => lines(path.join(dir, "handled.jsonl")).length === 3);
      const handled = lines(path.join(dir, "handled.jsonl"));
      expect(handled.map((h) => h.seq)).toEqual([1, 2, 3]);
      expect(new Set(handled.map((h) => h.pid))).toEqual(new Set([pid]));
      // It said hello again: more than one connection, the same process.
      expect(lines(path.join(dir, "connections.jsonl")).length).toBeGreaterThanOrEqual(2);
    });
  }

  it("a reply pending across a kill -9 is sent again on the new connection, handled once", async () => {
    const { c, id, dir } = await startAgent();
    const file = (name: string) => lines(path.join(dir, name));
    // The task's ack is in the store: after the kill, reply 2 alone is waiting.
    await until("reply 1's ack written", () => ackStored(d, id, 1));
    // The handler runs until the test opens its gate: the kill lands while it runs, for certain.
    await c.ok("reply", { id, text: "gate open" });
    await until("the handler under way", () => file("started.jsonl").some((s) => s.seq === 2));
    expect(file("handled.jsonl").map((h) => h.seq)).toEqual([1]);
    await d.kill("SIGKILL"); // its ack cannot have been sent: the handler has not returned
    await d.start();
    const c2 = await d.client();
    // The daemon kept it waiting, and sends it again on the agent's next connection.
    expect((await c2.ok("pending", { id })).replies.map((r: any) => [r.seq, r.text])).toEqual([
      [2, "gate open"],
    ]);
    await until("reply 2 delivered again, on the second connection", () =>
      file("deliveries.jsonl").some((x) => x.seq === 2 && x.conn === 2),
    );
    fs.writeFileSync(path.join(dir, "open"), "");
    await until("acked after the restart", async () => (await rowOf(c2, id)).pending === 0);
    // Delivered twice, once on each connection; handled once (the second only skipped and acked).
    expect(file("deliveries.jsonl").map((x) => [x.seq, x.conn])).toEqual([
      [1, 1],
      [2, 1],
      [2, 2],
    ]);
    expect(file("started.jsonl").map((h) => h.seq)).toEqual([1, 2]);
    expect(file("handled.jsonl").map((h) => h.seq)).toEqual([1, 2]);
  });

  it("a dispatch's requestId sent again after a kill -9 is a duplicate: the same job, none started", async () => {
    const c = await d.client();
    // The jobs earlier tests made: after the resend, the list is those and this one, no other.
    const before = (await c.ok("list", {})).rows.map((r: any) => r.id);
    const args = { profile: "agent", task: "once", cwd: "/tmp", requestId: "dispatch-across-crash" };
    const { job } = await c.ok("dispatch", args);
    expect(job.life).toBe("running");
    await d.kill("SIGKILL");
    await d.start();
    const c2 = await d.client();
    const again = await c2.ok("dispatch", args);
    expect(again.duplicate).toBe(true);
    expect(again.job.id).toBe(job.id);
    expect(again.job.pid).toBe(job.pid);
    const { rows } = await c2.ok("list", {});
    expect(rows.map((r: any) => r.id).sort()).toEqual([...before, job.id].sort());
    await until("the task handled", () => handled(d, job.id).length === 1);
    expect(handled(d, job.id).map((h) => h.text)).toEqual(["once"]);
  });
});

describe("kill -9 right after 200 replies were answered saved", () => {
  // A job remembers its last 100 reply ids (docs/protocol.md, "roost's choices": Request ids): 200
  // replies go to five agents, 40 each (below `full`'s 50 with the task), so that every id is still
  // remembered when it is sent again.
  it("delivers all 200 after the restart, none twice, and each resent requestId is a duplicate", async () => {
    const c = await d.client();
    const jobs: { id: string; dir: string }[] = [];
    for (let j = 0; j < 5; j++) {
      const { job } = await c.ok("dispatch", { profile: "agent-5ms", task: `task ${j}`, cwd: "/tmp" });
      jobs.push({ id: job.id, dir: path.join(d.home, "jobs", job.id) });
    }
    const replies = Array.from({ length: 200 }, (_, i) => ({
      job: jobs[i % 5]!,
      text: `r${i}`,
      requestId: `req-${i}`,
    }));
    // Pipelined: the handlers are slower than the replies come, so there is a backlog at the kill.
    const answers = await Promise.all(
      replies.map((r) => c.request("reply", { id: r.job.id, text: r.text, requestId: r.requestId })),
    );
    expect(answers.filter((a) => !(a.ok && a.result.saved === true && a.result.seq >= 2))).toEqual([]);
    // This test's jobs' rows (the daemon has the earlier tests' too).
    const ours = (rows: any[]) => rows.filter((r) => jobs.some((j) => j.id === r.id));
    const backlog = ours((await c.ok("list", {})).rows).reduce((n: number, r: any) => n + r.pending, 0);
    await d.kill("SIGKILL");
    await d.start();
    const c2 = await d.client();
    const resent = await Promise.all(
      replies.map((r) => c2.request("reply", { id: r.job.id, text: r.text, requestId: r.requestId })),
    );
    expect(resent.map((a) => a.result)).toEqual(replies.map(() => ({ duplicate: true, saved: true })));
    for (const [j, job] of jobs.entries()) {
      await until(
        `${job.id}: 41 handled`,
        () => lines(path.join(job.dir, "handled.jsonl")).length >= 41,
        30000,
      );
      const handled = lines(path.join(job.dir, "handled.jsonl"));
      expect(handled.map((h) => h.seq)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
      const mine = replies.filter((r) => r.job === job).map((r) => r.text);
      expect(handled.slice(1).map((h) => h.text)).toEqual(mine);
      expect(handled[0].text).toBe(`task ${j}`);
    }
    await until("nothing pending", async () => {
      const rows = ours((await c2.ok("list", {})).rows);
      return rows.length === jobs.length && rows.every((r: any) => r.pending === 0 && r.lastSeq === 41);
    });
    expect(backlog).toBeGreaterThan(0); // the restart really had replies to send again
  });
});

describe("the agent protocol", () => {
  // The conformance run (docs/protocol.md, "Clients"): a scripted agent on each client (its
  // profile is named for it).
  for (const client of Object.keys(clients)) {
    it(`${client}: the first task as reply 1, reports, acks, a daemon restart under it, and its exit`, async () => {
      const c = await d.client();
      const { job } = await c.ok("dispatch", { profile: client, task: "first task", cwd: "/tmp" });
      const dir = path.join(d.home, "jobs", job.id);
      const first = await until("the task handled, reported and acked", async () => {
        const r = await rowOf(c, job.id);
        return r.summary === "did: first task" && r.pending === 0 ? r : null;
      });
      expect(first.kind).toBe("protocol");
      expect(first.connected).toBe(true);
      expect(lines(path.join(dir, "handled.jsonl")).map((h) => h.seq)).toEqual([1]);
      await d.restart("SIGKILL");
      const c2 = await d.client();
      await until("connected again", async () => (await rowOf(c2, job.id)).connected);
      expect((await c2.ok("reply", { id: job.id, text: "after the restart" })).seq).toBe(2);
      await until("reply 2 handled and acked", async () => (await rowOf(c2, job.id)).pending === 0);
      await until("reply 2 in the log", () => lines(path.join(dir, "handled.jsonl")).length === 2);
      const handled = lines(path.join(dir, "handled.jsonl"));
      expect(handled.map((h) => h.seq)).toEqual([1, 2]);
      expect(new Set(handled.map((h) => h.pid))).toEqual(new Set([job.pid]));
      await c2.ok("reply", { id: job.id, text: "exit 0" });
      const ended = await until("its exit", async () => {
        const r = await rowOf(c2, job.id);
        return r.life === "exited" ? r : null;
      });
      expect(ended.exitCode).toBe(0);
      expect(ended.state).toBe("done");
    });
  }
});

describe("the daemon's thread held up", () => {
  it("is said in its log with how long and whether it was the daemon's own work, and a request sent meanwhile is answered after", async () => {
    const c = await d.client();
    // Its log from here on: a hold said before (a restart in an earlier test) is not this one.
    const from = d.output.length;
    process.kill(d.pid, "SIGSTOP"); // as a machine that stalls holds it
    const asked = c.request("list");
    await sleep(2600);
    process.kill(d.pid, "SIGCONT");
    expect((await asked).ok).toBe(true);
    const line = await until("the line in its log", () =>
      /thread was held for (\d+) ms; .* \(it used (\d+) ms of CPU in that time: (.*)\)/.exec(
        d.output.slice(from),
      ),
    );
    expect(Number(line[1])).toBeGreaterThanOrEqual(2000);
    // Stopped, it ran nothing: the line says the hold was the machine's, not work of its own.
    expect(Number(line[2])).toBeLessThan(Number(line[1]) / 2);
    expect(line[3]).toBe("not its own work; the machine or the disk held it");
  });

  it("a hold spent running (half of it or more on the CPU) is said to be the daemon's own work", () => {
    expect(heldLine(3000, 2900)).toBe(
      "roost: the daemon's thread was held for 3000 ms; every request waited meanwhile (it used 2900 ms of CPU in that time: work of its own)",
    );
    expect(heldLine(3000, 1500)).toMatch(/: work of its own\)$/);
    expect(heldLine(3000, 1499)).toMatch(/: not its own work; the machine or the disk held it\)$/);
  });
});

describe("a bad roost.json", () => {
  it("keeps the daemon from starting at all: no socket, no store, exit 2", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-config-"));
    try {
      const file = path.join(home, "roost.json");
      fs.writeFileSync(file, '{"agentProfiles": {"mine": {"command": ["x"], "protocol": "yes"}}}');
      const err = await daemonRefusal({ ...process.env, ROOST_HOME: home });
      expect(err.code).toBe(2);
      expect(err.stderr).toContain(file);
      expect(err.stderr).toMatch(/agentProfiles\.mine\.protocol must be boolean/);
      expect(fs.existsSync(path.join(home, "roost.sock"))).toBe(false);
      expect(fs.existsSync(path.join(home, "roost.db"))).toBe(false);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("a signal while the daemon still starts", () => {
  it("SIGTERM after its socket opened, before its hub: a clean stop, exit 0, no hub", async () => {
    const own = await startDaemon({ config: { agentProfiles: { silent: silentProfile() } } });
    try {
      // A running protocol job whose agent never connects: the next start waits half a second for
      // it before its HTTP face (main.ts, agentsBack), with the socket already open.
      const c = await own.client();
      const { job } = await c.ok("dispatch", { profile: "silent" });
      await untilRow(c, job.id, "running", (r) => r.life === "running" && r.pid);
      await own.kill("SIGKILL");
      const proc = spawn(process.execPath, [CLI, "daemon"], {
        env: own.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let said = "";
      proc.stdout.on("data", (b) => {
        said += b;
      });
      proc.stderr.on("data", (b) => {
        said += b;
      });
      const exited = new Promise<[number | null, string | null]>((resolve) =>
        proc.once("exit", (code, signal) => resolve([code, signal])),
      );
      await until("its socket answers", () => answers(own.socket));
      expect(said).not.toContain("hub http");
      proc.kill("SIGTERM");
      expect(await exited).toEqual([0, null]);
      expect(said).toContain("roost: stopped (the jobs keep running)");
      expect(said).not.toContain("hub http");
      expect(fs.existsSync(own.socket)).toBe(false);
    } finally {
      await own.cleanup();
    }
  });
});
