/**
 * `roost profiles`: what `dispatch` takes: each profile, where it comes from (roost's own or the
 * home's roost.json), whether its program is here, its command and what it is.
 */
import { roostPaths } from "../../paths.js";
import { type Command, out, printJson } from "../command.js";
import { callOnce } from "../connect.js";
import { clean, clip, columns, paint, terminalWidth, wantsColour } from "../format.js";
import { io } from "../io.js";

/** A word as a shell would need it written: bare when it can be, else in single quotes. */
const shellWord = (w: string) => (/^[\w@%+=:,./~-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`);

/** The widest a name's column gets. */
const NAME_MAX = 30;

export const profiles: Command = {
  name: "profiles",
  arity: [0, 0],
  summary: "List the profiles `dispatch` takes: where each comes from, whether it can run, its command.",
  details: [
    "FROM is `built in` (roost's own) or `roost.json` ($ROOST_HOME/roost.json, read when roost",
    "starts; a profile there may replace a built-in one). CAN RUN is `installed`, or `missing`",
    "with why: `dispatch` refuses a profile whose program is not here.",
    "--json: {profiles: [{name, description, command, task, protocol, acp, source, installed, missing}],",
    "config}, config being roost.json's path.",
  ].join("\n"),
  examples: ["roost profiles", "roost profiles --json"],
  async run({ json, env }) {
    const result = await callOnce(env, "profiles", {});
    const config = roostPaths(env).config;
    if (json) {
      printJson({ ...result, config });
      return 0;
    }
    const colour = wantsColour(io().stdout, env);
    const p = paint(colour);
    const width = terminalWidth(io().stdout, env);
    const rows = result.profiles;
    const [head, ...lines] = columns(
      ["NAME", "FROM", "CAN RUN", "COMMAND"],
      rows.map((r) => [
        clean(r.name),
        r.source === "built-in" ? "built in" : "roost.json",
        r.installed ? "installed" : "missing",
        clean(r.command.map(shellWord).join(" ")),
      ]),
      {
        width,
        colour,
        max: [NAME_MAX],
        paintCell: (row, col, s) => (col === 2 ? (rows[row]!.installed ? p.green(s) : p.red(s)) : s),
      },
    );
    out(head);
    // Under each profile, what it is and why it cannot run: too long to share a line with the rest.
    const indent = " ".repeat(Math.min(NAME_MAX, Math.max(4, ...rows.map((r) => clean(r.name).length))) + 2);
    for (const [i, r] of rows.entries()) {
      out(lines[i]);
      for (const text of [r.description, r.missing])
        if (text) out(p.dim(indent + clip(clean(text), width - indent.length)));
    }
    out();
    out(`Your own go in ${config} (read when roost starts), e.g.`);
    out(`  {"agentProfiles": {"py": {"command": ["python3", "-i"], "description": "a Python prompt"}}}`);
    return 0;
  },
};
