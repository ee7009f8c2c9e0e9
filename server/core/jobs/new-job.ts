/**
 * A new job's record, one way for every kind of job: what each starts as (no agent has spoken,
 * nothing reported, no reply yet, a secret token of its own), with what its maker says (`dispatch`,
 * `peer_register`).
 */
import { randomBytes } from "node:crypto";
import type { JobRecord } from "../../store/records.js";

export type NewJob = Pick<JobRecord, "id" | "profile" | "launch" | "defaultName" | "order"> &
  Partial<
    Pick<
      JobRecord,
      | "token"
      | "userName"
      | "role"
      | "parent"
      | "life"
      | "pid"
      | "kind"
      | "dispatchRequestId"
      | "sessionKey"
      | "worktree"
      | "budget"
    >
  >;

export function newJobRecord(job: NewJob): JobRecord {
  const now = new Date().toISOString();
  return {
    token: randomBytes(24).toString("base64url"),
    userName: null,
    role: null,
    parent: null,
    pinned: false,
    life: "starting",
    exitCode: null,
    pid: null,
    kind: "terminal",
    agent: null,
    capabilities: [],
    report: null,
    asked: 0,
    lastSeq: 0,
    dispatchRequestId: null,
    createdAt: now,
    // One made running (a foreground session: roost starts no process for it) started as it was made.
    startedAt: job.life === "running" ? now : null,
    endedAt: null,
    updatedAt: now,
    sessionKey: null,
    worktree: null,
    conversation: null,
    stopReason: null,
    budget: null,
    ...job,
  };
}
