/** `roost ls`: the rows, as a table or as `list`'s result. */
import { type Command, out, printJson } from "../command.js";
import { callOnce } from "../connect.js";
import { table, terminalWidth, wantsColour } from "../format.js";

export const ls: Command = {
  name: "ls",
  aliases: ["list"],
  args: "[ID]",
  arity: [0, 1],
  summary: "List the jobs: their state, when they last changed, their summary or question.",
  details: "Pinned rows come first, marked *. Blocked rows show the question and its choices.",
  examples: ["roost ls", "roost ls j3 --json"],
  async run({ positionals: [id], json, env }) {
    const result = await callOnce(env, "list", id === undefined ? {} : { id });
    if (json) {
      printJson(result);
      return 0;
    }
    if (result.rows.length === 0) {
      out("no jobs yet: try `roost dispatch shell 'ls'`");
      return 0;
    }
    const lines = table(result.rows, {
      width: terminalWidth(process.stdout, env),
      colour: wantsColour(process.stdout, env),
    });
    for (const line of lines) out(line);
    return 0;
  },
};
