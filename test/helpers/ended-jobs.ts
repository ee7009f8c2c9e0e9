/**
 * Ended jobs written into a store through the store's own code (server/store's `Store`, as a daemon
 * that ran them would have left them): rows for a test or a benchmark that needs many, without
 * starting a process for each. The schema is the store's own, at its newest migration.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { JobRecord } from "../../server/store/records.js";
import { Store } from "../../server/store/store.js";

/** The `i`th job, ended a while ago, as a pi that did its task (every 7th failed). */
export function endedJob(id: string, i: number, task: string, t: number): JobRecord {
  const failed = i % 7 === 0;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id,
    token: randomBytes(24).toString("base64url"),
    profile: "inert",
    launch: {
      command: ["pi", "--mode", "rpc"],
      cwd: "/home/user/src/roost",
      env: {},
      task: "type",
      protocol: true,
    },
    userName: i % 20 === 0 ? `named ${i}` : null,
    defaultName: task.slice(0, 59),
    role: null,
    parent: null,
    pinned: i % 1000 === 0,
    order: -i,
    life: "exited",
    exitCode: failed ? 1 : 0,
    pid: null,
    kind: "protocol",
    agent: { name: "pi", version: "0.9.1" },
    capabilities: ["report", "replies", "steer"],
    report: {
      state: failed ? "failed" : "done",
      status: "idle",
      waitingFor: null,
      summary: `fixed the race in the half-close path; tests pass (${i})`,
      question: null,
      choices: null,
      tool: null,
      error: failed ? "exited with code 1" : null,
      name: `agent ${i}`,
      model: "claude-sonnet-4",
      thinking: "medium",
      context: { tokens: 91234, window: 200000, percent: 46 },
      usage: { input: 120345, output: 8123, cacheRead: 450000, cost: 1.23 },
      prLinks: i % 5 === 0 ? [`https://github.com/example/roost/pull/${i}`] : null,
      remoteAt: null,
      attachSignal: null,
      attachRepaint: null,
      agentItems: null,
    },
    asked: 0,
    lastSeq: 0,
    dispatchRequestId: `dispatch-${i}`,
    createdAt: iso(t),
    startedAt: iso(t + 1000),
    endedAt: iso(t + 50_000),
    updatedAt: iso(t + 50_000),
    sessionKey: null,
    worktree: null,
    conversation: null,
    stopReason: null,
    budget: null,
  };
}

/**
 * A fresh temp home (owner-only, as a daemon wants it) whose store holds one ended job for each
 * name, the first oldest, all ended within the last minute (the hub folds ended rows away only
 * after a while): start a daemon on it with `startDaemon({ home })`.
 */
export function homeWithEndedJobs(names: string[]): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-test-"));
  const store = new Store(path.join(home, "roost.db"));
  // endedJob's job ends 50 s after it was made: these end 0.1 s apart, the last 10 s ago.
  const start = Date.now() - 60_000 - names.length * 100;
  try {
    store.batch(() => {
      names.forEach((name, n) => {
        const i = n + 1;
        const t = start + i * 100;
        store.createJob((num) => ({ ...endedJob(`j${num}`, i, name, t), userName: name }), null);
      });
    });
  } finally {
    store.close();
  }
  return home;
}
