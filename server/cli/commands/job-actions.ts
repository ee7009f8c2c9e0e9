/** The one-job actions: stop, rm, respawn, pin, unpin, rename. */
import { type Command, out, printJson } from "../command.js";
import { callOnce } from "../connect.js";
import { failedToStart, startFailure } from "./dispatch.js";

export const stop: Command = {
  name: "stop",
  args: "ID",
  arity: [1, 1],
  summary: "Stop a job (SIGTERM, then SIGKILL after a grace); its row stays.",
  details: "Returns once the process has ended. `roost respawn ID` starts it again.",
  examples: ["roost stop j3"],
  async run({ positionals: [id], json, env }) {
    const result = await callOnce(env, "stop", { id: id! });
    if (json) printJson(result);
    else out(`stopped ${id}`);
    return 0;
  },
};

export const rm: Command = {
  name: "rm",
  args: "ID",
  arity: [1, 1],
  summary: "Remove a job: stop it if it runs, then take its row off the list.",
  examples: ["roost rm j3"],
  async run({ positionals: [id], json, env }) {
    const result = await callOnce(env, "rm", { id: id! });
    if (json) printJson(result);
    else out(`removed ${id}`);
    return 0;
  },
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
  args: "ID",
  arity: [1, 1],
  summary: pinned
    ? "Pin a job: pinned rows come first in the list."
    : "Unpin a job: it goes back among the others.",
  examples: [pinned ? "roost pin j3" : "roost unpin j3"],
  async run({ positionals: [id], json, env }) {
    const result = await callOnce(env, "pin", { id: id!, pinned });
    if (json) printJson(result);
    else out(`${pinned ? "pinned" : "unpinned"} ${id}`);
    return 0;
  },
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
