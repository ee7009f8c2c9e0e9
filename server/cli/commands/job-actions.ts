/** The job actions: stop, rm, pin and unpin (of one job or several), respawn, rename. */
import type { Command } from "../command.js";
import { out, printJson } from "../command.js";
import { callOnce } from "../connect.js";
import { inCliWords } from "../errors.js";
import { failedToStart, startFailure } from "./dispatch.js";
import { eachJob, SEVERAL } from "./each-job.js";

export const stop: Command = {
  name: "stop",
  args: "ID...",
  arity: [1, Number.POSITIVE_INFINITY],
  summary: "Stop jobs (SIGTERM, then SIGKILL after a grace); their rows stay.",
  details:
    "Returns once each process has ended. `roost respawn ID` starts one again. --sleep puts them to\n" +
    `sleep: stopped as idle (their rows say so), to be woken by respawn, their conversations going on.\n${SEVERAL}`,
  options: {
    sleep: { type: "boolean", help: "put them to sleep: stopped with the reason idle (docs/budgets.md)" },
  },
  examples: ["roost stop j3", "roost stop j3 j4 j7", "roost stop --sleep j3 j4"],
  run: (inv) =>
    eachJob(inv, inv.values.sleep ? "put to sleep" : "stopped", (client, id) =>
      client.call("stop", { id, ...(inv.values.sleep ? { reason: "idle" as const } : {}) }),
    ),
};

export const rm: Command = {
  name: "rm",
  args: "ID...",
  arity: [1, Number.POSITIVE_INFINITY],
  summary: "Remove jobs: stop each that runs, then take its row off the list.",
  details:
    "A job's worktree is removed with it, its branch kept (--delete-branch: deleted too); one\n" +
    `with uncommitted changes is refused without --force.\n${SEVERAL}`,
  options: {
    "delete-branch": { type: "boolean", help: "delete the worktree's branch too" },
    force: { type: "boolean", help: "remove a worktree with uncommitted changes, losing them" },
  },
  examples: ["roost rm j3", "roost rm j3 j4 j7", "roost rm j3 --delete-branch"],
  run: (inv) =>
    eachJob(inv, "removed", (client, id) =>
      client
        .call("rm", {
          id,
          ...(inv.values["delete-branch"] ? { deleteBranch: true } : {}),
          ...(inv.values.force ? { force: true } : {}),
        })
        .catch((err) => {
          // The daemon says "rm with force"; here that is the option.
          throw inCliWords(err, [
            ["rm with force", `\`roost rm ${id} --force\``],
            ["rm it with force", `\`roost rm ${id} --force\``],
          ]);
        }),
    ),
};

export const respawn: Command = {
  name: "respawn",
  args: "ID",
  arity: [1, 1],
  summary: "Start a job again under the same id; its pending replies are sent again.",
  details: "A running job is stopped first. Exits 1 when it fails to start, printing why.",
  examples: ["roost respawn j3"],
  async run({ positionals: [id], json, env }) {
    const result = await callOnce(env, "respawn", { id: id! });
    if (json) printJson(result);
    if (failedToStart(result.job)) {
      if (json) return 1;
      throw startFailure(result.job);
    }
    if (!json) out(`respawned ${id} (${result.job.profile}) in ${result.job.cwd}`);
    return 0;
  },
};

const pinning = (pinned: boolean): Command => ({
  name: pinned ? "pin" : "unpin",
  args: "ID...",
  arity: [1, Number.POSITIVE_INFINITY],
  summary: pinned
    ? "Pin jobs: pinned rows come first in the list."
    : "Unpin jobs: they go back among the others.",
  details: SEVERAL,
  examples: [pinned ? "roost pin j3 j4" : "roost unpin j3"],
  run: (inv) =>
    eachJob(inv, pinned ? "pinned" : "unpinned", (client, id) => client.call("pin", { id, pinned })),
});

export const pin = pinning(true);
export const unpin = pinning(false);

export const rename: Command = {
  name: "rename",
  args: "ID NAME...",
  arity: [2, Number.POSITIVE_INFINITY],
  summary: "Rename a job's row; the name you give stays over the agent's own.",
  details: "NAME's words are joined by spaces.",
  examples: ["roost rename j3 nightly build"],
  async run({ positionals: [id, ...words], json, env }) {
    const name = words.join(" ");
    const result = await callOnce(env, "rename", { id: id!, name });
    if (json) printJson(result);
    else out(`renamed ${id} to ${name}`);
    return 0;
  },
};
