/** `roost dispatch`: start a job from a profile. */
import path from "node:path";
import type { Row } from "../../../sdk/ts/protocol/index.js";
import { CliError, type Command, out, printJson, str, UsageError } from "../command.js";
import { callOnce } from "../connect.js";
import { clean } from "../format.js";
import { io } from "../io.js";
import { BUDGET_OPTIONS, budgetFlags } from "./budget.js";

/** A job that ended as it started (it could not start, or failed at once) is the command's failure. */
export function failedToStart(row: Row): boolean {
  return row.life === "exited" && row.state === "failed";
}

export function startFailure(row: Row): CliError {
  return new CliError(
    `${row.id} (${row.profile}) failed: ${clean(row.error ?? `exited with code ${row.exitCode}`)}`,
  );
}

export const dispatch: Command = {
  name: "dispatch",
  args: "PROFILE [TASK...]",
  arity: [1, Number.POSITIVE_INFINITY],
  summary: "Start a job: PROFILE's command in a terminal of its own, given TASK.",
  details:
    "TASK's words are joined by spaces; it is typed into the job as its first reply (or appended to\n" +
    "the command, as the profile says). Exits 1 when the job fails to start, printing why.",
  options: {
    name: { type: "string", value: "N", help: "the row's name (default: the start of the task)" },
    cwd: { type: "string", value: "DIR", help: "where it runs (default: this directory)" },
    worktree: {
      type: "boolean",
      help: "run it in a git worktree of its own, on a new branch roost/ID, from this repository's HEAD",
    },
    branch: {
      type: "string",
      value: "B",
      help: "the worktree's branch (default roost/ID; implies --worktree)",
    },
    "no-worktree": { type: "boolean", help: "run it here, though its profile asks for a worktree" },
    sandbox: {
      type: "boolean",
      help: "run it in roost's sandbox (bubblewrap): it writes only its tree, and cannot act as the hub",
    },
    "no-sandbox": { type: "boolean", help: "run it unconfined, though its profile asks for the sandbox" },
    "idle-stop": {
      type: "string",
      value: "T",
      help: 'stop it once it has had nothing to do for T ("30m", "2h"; "off": never), whatever its profile says',
    },
    "request-id": {
      type: "string",
      value: "ID",
      help: "sent again with the same ID, it starts nothing and answers the first job",
    },
    ...BUDGET_OPTIONS,
  },
  examples: [
    "roost dispatch shell 'npm test' --name tests",
    "roost dispatch shell --cwd ~/src/app",
    "roost dispatch claude 'fix the login bug' --worktree",
    "roost dispatch pi 'tidy the tests' --worktree --sandbox",
    "roost dispatch pi 'review the PR' --idle-stop 2h",
    "roost dispatch claude 'port the parser' --budget cost=5,minutes=30",
  ],
  async run({ positionals: [profile, ...task], values, json, env }) {
    const cwd = str(values, "cwd");
    const name = str(values, "name");
    const requestId = str(values, "request-id");
    const branch = str(values, "branch");
    const idleStop = str(values, "idle-stop");
    if (values.worktree && values["no-worktree"])
      throw new UsageError("--worktree and --no-worktree say opposite things: give one");
    const worktree = values.worktree ? true : values["no-worktree"] ? false : undefined;
    if (values.sandbox && values["no-sandbox"])
      throw new UsageError("--sandbox and --no-sandbox say opposite things: give one");
    const sandbox = values.sandbox ? true : values["no-sandbox"] ? false : undefined;
    const budget = budgetFlags(values);
    const result = await callOnce(env, "dispatch", {
      profile: profile!,
      // The daemon has its own working directory: a relative --cwd means relative to the user's.
      cwd: cwd === undefined ? io().cwd() : cwd.startsWith("~") ? cwd : path.resolve(cwd),
      ...(task.length ? { task: task.join(" ") } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(requestId !== undefined ? { requestId } : {}),
      ...(worktree !== undefined ? { worktree } : {}),
      ...(branch !== undefined ? { branch } : {}),
      ...(sandbox !== undefined ? { sandbox } : {}),
      ...(idleStop !== undefined ? { idleStop } : {}),
      ...(budget !== undefined ? { budget } : {}),
    });
    const row = result.job;
    if (json) printJson(result);
    if (failedToStart(row)) {
      if (json) return 1;
      throw startFailure(row);
    }
    if (!json) {
      const on = `${row.worktree ? ` on branch ${row.worktree.branch}` : ""}${row.sandboxed ? ", sandboxed" : ""}`;
      out(
        result.duplicate
          ? `already started ${row.id} (${row.profile}) in ${row.cwd}${on} (duplicate)`
          : `started ${row.id} (${row.profile}) in ${row.cwd}${on}`,
      );
      if (row.worktree?.baseDirty && !result.duplicate)
        out(
          `  (${row.worktree.repo} has uncommitted changes: the worktree starts from its last commit, without them)`,
        );
    }
    return 0;
  },
};
