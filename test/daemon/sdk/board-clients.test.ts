/**
 * The task board's helpers in both agent clients against a real daemon: test agents on the BUILT
 * TypeScript client (test/fixtures/sdk-agent.mjs) and on the Python one (test/fixtures/py_agent.py)
 * add, claim, finish and release tasks (`tasks() / claimTask / taskDone / releaseTask / addTask`,
 * `tasks() / claim_task / task_done / release_task / add_task`); a refusal comes with the wire's
 * code (`blocked`, `conflict`, `bad_request`); a call the daemon does not answer ends in a timeout
 * after its time (`timeout` / `TimeoutError`), one whose connection is lost meanwhile in
 * `disconnected`, and after the daemon is back the calls go through again. `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, ROOT, sleep, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { lines, untilRow } from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";

const CLIENTS = {
  ts: {
    command: [process.execPath, path.join(FIXTURES, "sdk-agent.mjs")],
    agent: "sdk-test-agent",
    timeoutCode: "timeout",
    /** gate-call's timeout, in the client's unit. */
    second: "1000",
    /** A call whose connection is lost waits for roost and is sent again (ride-out.ts). */
    ridesOut: true,
  },
  python: {
    command: ["python3", path.join(FIXTURES, "py_agent.py")],
    agent: "py-agent",
    timeoutCode: "TimeoutError",
    second: "1",
    ridesOut: false,
  },
} as const;

let d: TestDaemon | undefined;
afterEach(async () => {
  if (d) process.kill(d.pid, "SIGCONT"); // a test that failed while the daemon was stopped
  await d?.cleanup();
  d = undefined;
});

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, "dist/sdk/ts/agent/index.js")))
    throw new Error("build first: npm run build");
});

interface Agent {
  id: string;
  file: (name: string) => string;
  log: (name: string) => any[];
}

async function start(kind: keyof typeof CLIENTS): Promise<RawClient> {
  d = await startDaemon({
    config: {
      agentProfiles: { agent: { command: [...CLIENTS[kind].command], task: "type", protocol: true } },
    },
  });
  return d.client();
}

async function agent(c: RawClient, name: string): Promise<Agent> {
  const { job } = await c.ok("dispatch", { profile: "agent", task: `task of ${name}`, name, cwd: "/tmp" });
  const file = (f: string) => path.join(d!.home, "jobs", job.id, f);
  const a = { id: job.id, file, log: (f: string) => lines(file(f)) };
  await untilRow(c, a.id, "its task handled", (r) => r.pending === 0 && a.log("handled.jsonl").length === 1);
  return a;
}

/** The agent runs `text` (a fixture's command): its call's answer or refusal, as calls.jsonl has it. */
async function call(c: RawClient, a: Agent, text: string): Promise<any> {
  const before = a.log("calls.jsonl").length;
  await c.ok("reply", { id: a.id, text });
  return until(`${a.id}: ${text}`, () => a.log("calls.jsonl")[before]);
}

for (const kind of ["ts", "python"] as const) {
  const client = CLIENTS[kind];
  describe(`the ${kind} client's board helpers`, () => {
    it("add (with after), claim, done with a result, release, tasks; refusals with the wire's code", async () => {
      const c = await start(kind);
      const a = await agent(c, "alice");
      const b = await agent(c, "bob");
      const first = (await c.ok("task", { action: "add", title: "build the tarball" })).task.id;

      const added = await call(c, a, `add-task ${first} publish the tarball`);
      expect(added.ok).toBe(true);
      expect(added.result.task).toMatchObject({
        title: "publish the tarball",
        state: "open",
        after: [first],
        by: { who: "alice", whoId: a.id },
      });
      const second = added.result.task.id as number;
      expect(added.result.tasks.map((t: any) => t.id)).toEqual([first, second]);

      // Blocked while #first is not done; a string of digits is an id too.
      expect(await call(c, a, `claim ${second}`)).toMatchObject({ ok: false, code: "blocked" });
      const claimed = await call(c, a, `claim ${first}`);
      expect(claimed.result.task).toMatchObject({
        id: first,
        state: "claimed",
        owner: { id: a.id, name: "alice" },
      });
      expect(await call(c, b, `claim ${first}`)).toMatchObject({ ok: false, code: "conflict" });
      // Not bob's to finish: another holds it.
      expect(await call(c, b, `task-done ${first} not mine`)).toMatchObject({
        ok: false,
        code: "conflict",
      });

      const done = await call(c, a, `task-done ${first} 1.2 MB, in dist/`);
      expect(done.result.task).toMatchObject({ id: first, state: "done", result: "1.2 MB, in dist/" });
      // Its own done again (a resend): answered as it is, the first result kept.
      expect(await call(c, a, `task-done ${first} again`)).toMatchObject({
        ok: true,
        result: { duplicate: true, task: { result: "1.2 MB, in dist/" } },
      });

      // Now #second may be claimed; released, it is open again.
      expect((await call(c, b, `claim ${second}`)).result.task).toMatchObject({
        state: "claimed",
        owner: { id: b.id },
      });
      expect((await call(c, b, `release ${second}`)).result.task).toMatchObject({
        state: "open",
        owner: null,
      });

      // tasks(): the board itself (a list), oldest first.
      const listed = await call(c, b, "tasks");
      expect(listed.result.map((t: any) => [t.id, t.state])).toEqual([
        [first, "done"],
        [second, "open"],
      ]);
      expect((await untilRow(c, a.id, "connected", (r) => r.connected)).agent.name).toBe(client.agent);
    });

    it("a call with no answer ends after its time; one whose connection is lost meanwhile is disconnected (the TypeScript client's waits for roost and is sent again); then the calls go through again", async () => {
      const c = await start(kind);
      const a = await agent(c, "waiter");
      const daemon = d!;

      // The daemon stopped (SIGSTOP): the connection stays, no answer comes.
      await c.ok("reply", { id: a.id, text: `gate-call go ${client.second}` });
      await until("the handler waiting at its gate", () => a.log("started.jsonl").length === 2);
      process.kill(daemon.pid, "SIGSTOP");
      let timedOut: any;
      try {
        fs.writeFileSync(a.file("go"), "");
        timedOut = await until("the call timed out", () => a.log("calls.jsonl")[0]);
      } finally {
        process.kill(daemon.pid, "SIGCONT");
      }
      expect(timedOut).toMatchObject({ op: "gate-call", ok: false, code: client.timeoutCode });
      await untilRow(c, a.id, "the reply acked", (r) => r.pending === 0);

      // Asked while the daemon is stopped, and the daemon then killed: the connection is lost.
      await c.ok("reply", { id: a.id, text: "gate-call go-again 60000" });
      await until("the handler waiting at its gate again", () => a.log("started.jsonl").length === 3);
      process.kill(daemon.pid, "SIGSTOP");
      fs.writeFileSync(a.file("go-again"), "");
      await until("the call asked", () => a.log("gated.jsonl").length === 2);
      await sleep(300); // its request written to the socket, unanswered
      await daemon.kill("SIGKILL");
      if (!client.ridesOut) {
        const lost = await until("the call disconnected", () => a.log("calls.jsonl")[1]);
        expect(lost).toMatchObject({ op: "gate-call", ok: false, code: "disconnected" });
      }

      // The daemon back: the client connects again by itself, and the board answers.
      await daemon.start();
      if (client.ridesOut) {
        // The call waited for roost and was sent again: answered, never disconnected.
        const rode = await until("the call answered after the restart", () => a.log("calls.jsonl")[1]);
        expect(rode).toMatchObject({ op: "gate-call", ok: true });
      }
      const again = await daemon.client();
      await untilRow(again, a.id, "connected again", (r) => r.connected);
      await again.ok("task", { action: "add", title: "after the restart" });
      const listed = await call(again, a, "tasks");
      expect(listed).toMatchObject({ ok: true, result: [{ title: "after the restart", state: "open" }] });
    });
  });
}
