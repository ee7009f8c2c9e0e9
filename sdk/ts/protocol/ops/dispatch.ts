/** `dispatch` (protocol.md, "The hub's ops"): a profile, a task, a new job. */
import Type from "typebox";
import { Limits } from "../budgets.js";
import { IdleStop } from "../duration.js";
import { JobName, LIMITS, RequestId, Row } from "../schema.js";
import { BranchName } from "../worktree.js";

export const dispatch = {
  args: Type.Object({
    profile: Type.String({ minLength: 1, maxLength: 100 }),
    task: Type.Optional(Type.String({ maxLength: LIMITS.text })),
    name: Type.Optional(JobName),
    cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    requestId: Type.Optional(RequestId),
    /** Run it in a git worktree of its own, on a new branch (docs/worktrees.md); the profile's default else. */
    worktree: Type.Optional(Type.Boolean()),
    /** The worktree's new branch (default `roost/<job-id>`); implies `worktree`. */
    branch: Type.Optional(BranchName),
    /** Run it in roost's sandbox (docs/security.md); the profile's `sandbox` else. Linux, with bubblewrap. */
    sandbox: Type.Optional(Type.Boolean()),
    /** Stopped once it has had nothing to do this long ("2h"; false: never); the profile's, else roost.json's (docs/budgets.md). */
    idleStop: Type.Optional(IdleStop),
    /** The job's own budget (docs/budgets.md); roost.json's `budgets.job` else. */
    budget: Type.Optional(Limits),
  }),
  result: Type.Object({ job: Row, duplicate: Type.Optional(Type.Boolean()) }),
} as const;
