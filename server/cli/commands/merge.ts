/**
 * `roost merge ID`: a job's worktree branch landed in its base branch, here (nothing is pushed).
 * With several IDs, or a check, a push or a clean: through the merge queue (docs/worktrees.md,
 * "The merge queue"), followed until each has landed or failed.
 */
import type { OpArgs } from "../../../sdk/ts/protocol/index.js";
import { type Command, out, printJson, str, UsageError } from "../command.js";
import { callOnce } from "../connect.js";
import { queueAndFollow } from "./queue.js";

export const merge: Command = {
  name: "merge",
  args: "ID [ID...]",
  arity: [1, 50],
  summary:
    "Merge jobs' worktree branches into the branch they started from: one now, or several through the queue.",
  details: [
    "One ID alone: a fast-forward or a clean merge is done now (where that branch is checked out,",
    "its files follow); one with conflicts is refused, naming the files, and nothing changes. Only",
    "committed work is merged: a worktree with uncommitted changes is refused. Nothing is pushed.",
    "--json: {into, commit, fastForward, files}.",
    "",
    "Several IDs, or --check, --tell, --push or --clean: the merge queue lands them one at a time,",
    "in the order given: each branch is merged onto the target as it then is, in a scratch",
    "worktree, CMD run there (sh -c), and the target fast-forwarded only if it passed. A conflict",
    "or a failed check leaves the target as it was, and the queue goes on. It prints each entry's",
    "state as it changes (the check's last lines when it fails) until all have ended; the exit",
    "code is 1 if any did not land. --no-wait returns once they are queued. --json: each entry as",
    "it changes. `roost queue` lists the queue.",
  ].join("\n"),
  options: {
    into: { type: "string", value: "BRANCH", help: "merge into BRANCH (default: the one each started from)" },
    check: {
      type: "string",
      value: "CMD",
      help: "queue: run CMD in the merged tree; land only if it exits 0",
    },
    timeout: { type: "string", value: "SECONDS", help: "queue: the check's time limit (default 1800)" },
    tell: {
      type: "boolean",
      help: "queue: tell a job whose branch conflicts or fails the check what to fix",
    },
    push: { type: "string", value: "REMOTE", help: "queue: git push REMOTE the target after each landing" },
    clean: {
      type: "boolean",
      help: "queue: remove a landed job, its worktree and branch (rm --delete-branch)",
    },
    "no-wait": { type: "boolean", help: "queue: return once queued, without following" },
  },
  examples: [
    "roost merge j3",
    "roost merge j3 --into release",
    "roost merge j3 j4 j7 --check 'npm test'",
    "roost merge j3 j4 --check 'make test' --tell --push origin --clean --no-wait",
  ],
  async run(inv) {
    const { positionals: ids, values, json, env } = inv;
    const into = str(values, "into");
    const check = str(values, "check");
    const push = str(values, "push");
    const timeout = str(values, "timeout");
    const queued = ids.length > 1 || check !== undefined || push !== undefined || values.tell || values.clean;
    if (!queued) {
      if (values["no-wait"] || timeout !== undefined)
        throw new UsageError("--no-wait and --timeout are the queue's: give several IDs, or --check");
      return mergeNow(ids[0]!, into, json, env);
    }
    const seconds = timeout === undefined ? undefined : Number(timeout);
    if (seconds !== undefined && (!Number.isInteger(seconds) || seconds < 1 || seconds > 86400))
      throw new UsageError(
        `--timeout is a whole number of seconds from 1 to 86400, not ${JSON.stringify(timeout)}`,
      );
    const args: OpArgs<"queue-add"> = {
      ids,
      ...(into !== undefined ? { into } : {}),
      ...(check !== undefined ? { check } : {}),
      ...(seconds !== undefined ? { timeout: seconds } : {}),
      ...(values.tell ? { tell: true } : {}),
      ...(push !== undefined ? { push } : {}),
      ...(values.clean ? { clean: true } : {}),
    };
    return queueAndFollow(inv, args, !values["no-wait"]);
  },
};

async function mergeNow(id: string, into: string | undefined, json: boolean, env: NodeJS.ProcessEnv) {
  const r = await callOnce(env, "merge", { id, ...(into !== undefined ? { into } : {}) });
  if (json) printJson(r);
  else if (r.files.length === 0) out(`${id}: nothing to merge (${r.into} has it all)`);
  else
    out(
      `merged ${id} into ${r.into} (${r.fastForward ? "fast-forward" : "merge commit"} ${r.commit.slice(0, 12)}; ${r.files.length} file${r.files.length === 1 ? "" : "s"})`,
    );
  return 0;
}
