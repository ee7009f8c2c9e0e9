/**
 * Restarts under load: the daemon killed (kill -9) or stopped at random moments, the agents
 * killed or exiting, the pty host killed, all while hubs send replies, agents message each other
 * and claim tasks. Afterwards the ledger (ledger.ts) holds: every saved reply and every answered
 * message handled once, in order; the board's tasks done at most once, by an answered done.
 * Also: agents that exit while the daemon is down have their exit codes recorded once.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { lines } from "../helpers/jobs.js";
import { isAlive, killQuietly, sleep } from "../helpers/processes.js";
import { CHAOS_AGENT, caseSeed, faultPlan, moreFaults, once, Random, reportCase, rowOf } from "./chaos.js";
import { HubLoad } from "./hub-load.js";
import { checkLedger } from "./ledger.js";

type Fault = "daemon-kill" | "daemon-term" | "agent-kill" | "agent-exit" | "host-kill";

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

async function restartsUnderLoad(n: number, name: string, faults: Fault[], short: number): Promise<void> {
  const seed = caseSeed(n);
  const rand = new Random(seed);
  const daemon = await startDaemon({ config: { agentProfiles: { chaos: CHAOS_AGENT } } });
  d = daemon;
  const TASKS = 12;
  for (let t = 1; t <= TASKS; t++) await once(daemon, "task", { action: "add", title: `task ${t}` });
  const tasks = new Map<string, string>();
  for (let i = 1; i <= 4; i++) {
    const task = `w start-${i}`;
    const { job } = await once(daemon, "dispatch", { profile: "chaos", task, name: `agent-${i}` });
    tasks.set(job.id, task);
  }
  const jobs = [...tasks.keys()];
  for (const id of jobs) await until(`${id} connected`, async () => (await rowOf(daemon, id)).connected);

  const load = new HubLoad({ socket: daemon.socket, jobs, hubs: 3, tasks: TASKS, seed });
  const killed = new Set<number>();
  const tally: Record<string, number> = {};
  let own = 0; // the injector's own replies (hub 0)
  load.start();
  // Where it stands, every 10 s: what a hang looks like, in the output of a run that times out.
  const ticker = setInterval(() => {
    console.log(
      `chaos: ${name}: ${JSON.stringify({ faults: tally, saved: load.saved.length, resent: load.resent, refused: load.refused.length })}`,
    );
  }, 10_000);
  const plan = faultPlan(short);
  try {
    await injectFaults();
  } finally {
    clearInterval(ticker); // also when a fault fails: else it goes on printing into the next case
  }
  async function injectFaults(): Promise<void> {
    for (let done = 0; moreFaults(plan, done); done++) {
      await sleep(rand.int(200, 1500));
      const fault = rand.pick(faults);
      tally[fault] = (tally[fault] ?? 0) + 1;
      console.log(`chaos: ${name}: fault ${done + 1}: ${fault}`);
      if (fault === "daemon-kill") {
        await daemon.kill("SIGKILL");
        await sleep(rand.int(0, 300));
        await daemon.start();
      } else if (fault === "daemon-term") await daemon.restart("SIGTERM");
      else if (fault === "agent-kill") {
        const { pid } = await rowOf(daemon, rand.pick(jobs));
        if (pid) {
          killed.add(pid);
          killQuietly(pid); // the row may still name an agent that has just exited
        }
      } else if (fault === "agent-exit") await load.send(0, rand.pick(jobs), `exit 0 e-${++own}`, own);
      else if (fault === "host-kill") {
        for (const id of jobs) {
          const { pid } = await rowOf(daemon, id);
          if (pid) killed.add(pid);
        }
        // The host up now: after a host-kill its pid file names the dead one until the daemon
        // has started the next (killing that pid again would throw ESRCH, failing the case).
        const host = await until(
          "a pty host up",
          () => {
            const pid = daemon.ptyHostPid();
            return pid !== null && isAlive(pid) ? pid : null;
          },
          60_000,
        );
        process.kill(host, "SIGKILL");
      }
    }
    await load.stop();
  }
  // A last reply to each: a job a fault left ended is started again for it, and takes the rest.
  for (const id of jobs) await load.send(0, id, `w final-${++own}`, own);
  let againAfterExit = 0;
  await until(
    "every job caught up",
    async () => {
      const rows = await Promise.all(jobs.map((id) => rowOf(daemon, id)));
      const behind = rows.filter((r) => r.pending !== 0);
      if (behind.length === 0) return true;
      // A job whose process exited after its last reply came (an `exit` reply it took first, or a
      // kill that landed late) keeps what waits behind: only a reply from the user starts an
      // ended job (a peer's message does not, docs/protocol.md). The user replies again, as they
      // would; one that ended before its last reply came was to be started by it, and is not.
      for (const r of behind) {
        if (r.life === "exited" && (await exitedAfterLastReply(daemon, r.id))) {
          againAfterExit++;
          await load.send(0, r.id, `w again-${++own}`, own);
        }
      }
      // Said in the timeout's message: which jobs, and how they stand.
      throw new Error(
        JSON.stringify(
          behind.map((r) => [r.id, r.life, r.state, r.connected, r.pending, r.summary, r.error]),
        ),
      );
    },
    180_000,
  );
  const board = (await once(daemon, "task", { action: "list" })).tasks;
  const ledger = checkLedger({ home: daemon.home, jobs, saved: load.saved, tasks, killed, board });
  reportCase(name, seed, {
    faults: tally,
    repliesSaved: load.saved.length,
    refused: load.refused.length,
    resent: load.resent,
    againAfterExit,
    ...ledger,
    problems: ledger.problems.length,
  });
  expect(ledger.problems).toEqual([]);
  expect(ledger.repliesHandled).toBe(load.saved.length + jobs.length); // and each job's task
}

/**
 * Whether the job's process exited (the daemon's feed, in its own order) after the last reply to
 * it was recorded: that reply found it running, so it did not start it again.
 */
async function exitedAfterLastReply(daemon: TestDaemon, id: string): Promise<boolean> {
  type Entry = { cursor: number; kind: string; text: string };
  const events: Entry[] = (await once(daemon, "events", { id, limit: 1000 })).events;
  const exit = events.findLast((e) => e.kind === "exit");
  const reply = events.findLast((e) => e.kind === "reply");
  // "exited with code N": the process ran and ended (a start that failed says otherwise).
  return !!exit && !!reply && /^exited with code/.test(exit.text) && exit.cursor > reply.cursor;
}

describe("restarts under load", () => {
  it("kill -9 of the daemon at random moments: each saved reply, message and board change taken once, in order", async () => {
    await restartsUnderLoad(1, "daemon kill -9 under load", ["daemon-kill"], 12);
  });

  it("clean and hard restarts of the daemon, the agents and the pty host: the same holds", async () => {
    const faults: Fault[] = ["daemon-kill", "daemon-term", "agent-kill", "agent-exit", "host-kill"];
    await restartsUnderLoad(2, "daemon, agent and pty host restarts under load", faults, 15);
  });
});

describe("agents that exit while the daemon is down", () => {
  it("have their exit codes recorded once, across further restarts", async () => {
    const seed = caseSeed(3);
    const rand = new Random(seed);
    const daemon = await startDaemon({ config: { agentProfiles: { chaos: CHAOS_AGENT } } });
    d = daemon;
    const plan = faultPlan(3);
    let rounds = 0;
    let exits = 0;
    for (; moreFaults(plan, rounds); rounds++) {
      const codes = new Map<string, number>();
      for (let i = 0, count = rand.int(2, 5); i < count; i++) {
        const { job } = await once(daemon, "dispatch", { profile: "chaos", task: "w start" });
        codes.set(job.id, rand.int(1, 120));
      }
      const pids = new Map<string, number>();
      for (const [id, code] of codes) {
        const row = await until(`${id} connected`, async () => {
          const r = await rowOf(daemon, id);
          return r.connected ? r : undefined;
        });
        pids.set(id, row.pid);
        await once(daemon, "reply", { id, text: `gate open-${id}` });
        await once(daemon, "reply", { id, text: `exit ${code}` });
        const started = path.join(daemon.home, "jobs", id, "started.jsonl");
        await until(`${id} at its gate`, () => lines(started).some((s) => s.text === `gate open-${id}`));
      }
      await daemon.kill("SIGKILL");
      // Down: each agent passes its gate, takes its exit reply and exits with its code.
      for (const id of codes.keys()) fs.writeFileSync(path.join(daemon.home, "jobs", id, `open-${id}`), "");
      for (const [id, pid] of pids) await until(`${id}'s agent gone`, () => !isAlive(pid), 30_000);
      await sleep(rand.int(0, 500));
      await daemon.start();
      for (let again = 0; again < 2; again++) {
        for (const [id, code] of codes) {
          const r = await rowOf(daemon, id);
          expect(r).toMatchObject({ life: "exited", exitCode: code });
          const ends = (await once(daemon, "events", { id })).events.filter((e: any) => e.kind === "exit");
          expect(ends).toHaveLength(1);
        }
        await daemon.restart(again === 0 ? "SIGKILL" : "SIGTERM");
      }
      exits += codes.size;
    }
    reportCase("agents exiting while the daemon is down", seed, { rounds, exits, recordedOnce: exits });
  });
});
