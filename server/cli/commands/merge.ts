/** `roost merge ID`: a job's worktree branch landed in its base branch, here (nothing is pushed). */
import { type Command, out, printJson, str } from "../command.js";
import { callOnce } from "../connect.js";

export const merge: Command = {
  name: "merge",
  args: "ID",
  arity: [1, 1],
  summary: "Merge a job's worktree branch into the branch it started from, in its repository.",
  details:
    "A fast-forward or a clean merge is done (where that branch is checked out, its files follow);\n" +
    "one with conflicts is refused, naming the files, and nothing changes. Only committed work is\n" +
    "merged: a worktree with uncommitted changes is refused. Nothing is pushed.\n" +
    "--json: {into, commit, fastForward, files}.",
  options: {
    into: { type: "string", value: "BRANCH", help: "merge into BRANCH (default: the one it started from)" },
  },
  examples: ["roost merge j3", "roost merge j3 --into release"],
  async run({ positionals: [id], values, json, env }) {
    const into = str(values, "into");
    const r = await callOnce(env, "merge", { id: id!, ...(into !== undefined ? { into } : {}) });
    if (json) printJson(r);
    else if (r.files.length === 0) out(`${id}: nothing to merge (${r.into} has it all)`);
    else
      out(
        `merged ${id} into ${r.into} (${r.fastForward ? "fast-forward" : "merge commit"} ${r.commit.slice(0, 12)}; ${r.files.length} file${r.files.length === 1 ? "" : "s"})`,
      );
    return 0;
  },
};
