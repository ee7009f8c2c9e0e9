/** `roost ls`: the rows, as a table or as `list`'s result, filtered, in triage's order, as trees. */
import { LOCAL_DAEMON } from "../../paths.js";
import { type Command, out, printJson, str } from "../command.js";
import { callOnce } from "../connect.js";
import { table, terminalWidth, wantsColour } from "../format.js";
import { io } from "../io.js";
import { arrange, parseOrder, parseProfiles, parseStates, pick, STATE_WORDS } from "../triage.js";

export const ls: Command = {
  name: "ls",
  aliases: ["list"],
  args: "[ID]",
  arity: [0, 1],
  summary: "List the jobs: their state, when they last changed, their summary or question.",
  details: [
    "STATE is one word for every face (the hub's too, and each row's view in --json): blocked (it",
    "asks you something), failed, your turn (its prompt waits for you), waiting (its helpers are",
    "still at work), working, starting, done, stopped; an ended job adds its exit code. Blocked",
    "rows show the question and its choices, failed ones the error.",
    "Rows come in triage's order: pinned first (marked *), then blocked, failed, your turn,",
    "waiting, working, starting, done, stopped; --sort list keeps the hub's order (newest first).",
    "A job another spawned is shown under it, indented (└); a tree goes where its most urgent",
    "job would, as in the hub.",
    `--state takes words separated by commas: ${STATE_WORDS.join(", ")}`,
    "(idle is your-turn; ended is done and stopped; need is blocked and failed; running is not ended).",
    "Other daemons' jobs (roost.json's remotes: roost remote) are listed too, as NAME:ID;",
    `--daemon NAME shows one daemon's (${LOCAL_DAEMON}: this one's), and ID may be NAME:ID.`,
    "--json prints the rows shown, in the same order.",
  ].join("\n"),
  options: {
    state: { type: "string", value: "WORDS", help: "only rows in these states (blocked,idle ...)" },
    profile: { type: "string", value: "NAMES", help: "only jobs of these profiles (shell,py ...)" },
    sort: { type: "string", value: "triage|list", help: "triage (the default) or the hub's order" },
    daemon: {
      type: "string",
      value: "NAME",
      help: `only one daemon's jobs (a remote's name; ${LOCAL_DAEMON}: this one's)`,
    },
  },
  examples: [
    "roost ls",
    "roost ls --state blocked,idle",
    "roost ls --profile shell --sort list",
    "roost ls j3 --json",
    "roost ls --daemon build",
    "roost ls build:j7",
  ],
  async run({ positionals: [id], values, json, env }) {
    const rawStates = str(values, "state");
    const rawProfiles = str(values, "profile");
    const filters = {
      ...(rawStates !== undefined ? { states: parseStates(rawStates) } : {}),
      ...(rawProfiles !== undefined ? { profiles: parseProfiles(rawProfiles) } : {}),
      order: parseOrder(str(values, "sort")),
    };
    const daemon = str(values, "daemon");
    const listed = await callOnce(env, "list", id === undefined ? {} : { id });
    const result =
      daemon === undefined
        ? listed
        : { ...listed, rows: listed.rows.filter((r) => (r.daemon ?? LOCAL_DAEMON) === daemon) };
    const { rows, depth } = arrange(pick(result.rows, filters), result.rows, filters.order);
    if (json) {
      printJson({ ...result, rows });
      return 0;
    }
    if (rows.length === 0) {
      if (result.rows.length === 0) out("no jobs yet: try `roost dispatch shell 'ls'`");
      else out(`no job matches; \`roost ls\` shows all ${result.rows.length}`);
      return 0;
    }
    const lines = table(rows, {
      width: terminalWidth(io().stdout, env),
      colour: wantsColour(io().stdout, env),
      depth,
    });
    for (const line of lines) out(line);
    return 0;
  },
};
