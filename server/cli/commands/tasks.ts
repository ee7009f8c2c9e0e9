/**
 * `roost tasks`: the task board (docs/protocol.md, "The task board"): the tasks as a table, and
 * the user's actions on it: `add`, `assign`, `drop`. Sessions claim and finish tasks themselves.
 */
import { taskView } from "../../../sdk/ts/protocol/board-view.js";
import type { BoardTask, OpResult, TaskAction } from "../../../sdk/ts/protocol/index.js";
import { type Command, out, printJson, str, UsageError, type Values } from "../command.js";
import { callOnce } from "../connect.js";
import { clean, columns, type Paint, paint, terminalWidth, wantsColour } from "../format.js";
import { io } from "../io.js";

const ACTIONS = ["add", "assign", "drop"] as const;

/** A task's id as typed: `3` or `#3` (as the table shows it). */
function taskId(raw: string, what = "a task's ID"): number {
  const digits = raw.replace(/^#/, "");
  if (!/^[0-9]{1,15}$/.test(digits) || Number(digits) < 1)
    throw new UsageError(
      `${what} is a number such as 3 (\`roost tasks\` lists them), not ${JSON.stringify(raw)}`,
    );
  return Number(digits);
}

/** `--after 1,2`: the ids, each checked. */
function afterIds(raw: string): number[] {
  const parts = raw.split(",").map((s) => s.trim());
  if (parts.some((s) => s === "")) throw new UsageError(`--after takes IDs separated by commas, e.g. 1,2`);
  return parts.map((s) => taskId(s, "each of --after's IDs"));
}

/** What the command line asks of the daemon: the action's args. */
function actionOf(positionals: string[], values: Values): TaskAction {
  const [word, ...rest] = positionals;
  if (word === undefined) {
    if (values.detail !== undefined || values.after !== undefined)
      throw new UsageError("--detail and --after go with `roost tasks add TITLE`");
    return { action: "list" };
  }
  const want = (n: number, usage: string) => {
    if (rest.length !== n) throw new UsageError(`usage: roost tasks ${usage}`);
  };
  if (word !== "add" && (values.detail !== undefined || values.after !== undefined))
    throw new UsageError(`--detail and --after go with \`roost tasks add\`, not \`${word}\``);
  if (word === "add") {
    const title = rest.join(" ").trim();
    if (!title) throw new UsageError("usage: roost tasks add TITLE [--detail TEXT] [--after IDS]");
    const detail = str(values, "detail");
    const after = str(values, "after");
    return {
      action: "add",
      title,
      ...(detail !== undefined ? { detail } : {}),
      ...(after !== undefined ? { after: afterIds(after) } : {}),
    };
  }
  if (word === "assign") {
    want(2, "assign ID JOB");
    return { action: "assign", id: taskId(rest[0]!), to: rest[1]! };
  }
  if (word === "drop") {
    want(1, "drop ID");
    return { action: "drop", id: taskId(rest[0]!) };
  }
  throw new UsageError(
    `no action ${JSON.stringify(word)}: \`roost tasks\` lists the board; its actions are ${ACTIONS.join(", ")}`,
  );
}

const STATE_COLOUR: Record<ReturnType<typeof taskView>, keyof Paint | null> = {
  open: null,
  blocked: "yellow",
  claimed: "cyan",
  done: "green",
  failed: "red",
  dropped: "dim",
};

/** Who has it: its owner (claimed, or who did it), or whom it was handed to. */
function holder(t: BoardTask): string {
  if (t.owner) return `${clean(t.owner.name) || t.owner.id} (${t.owner.id})`;
  if (t.assigned) return `→ ${clean(t.assigned.name) || t.assigned.id} (${t.assigned.id})`;
  return "";
}

/** The board as lines: ID STATE AFTER WHO TITLE, a done task's result after its title. */
export function boardTable(tasks: readonly BoardTask[], opts: { width: number; colour: boolean }): string[] {
  const p = paint(opts.colour);
  const views = tasks.map((t) => taskView(t, tasks));
  return columns(
    ["ID", "STATE", "AFTER", "WHO", "TITLE"],
    tasks.map((t, i) => [
      `#${t.id}`,
      views[i]!,
      t.after.map((a) => `#${a}`).join(",") || "-",
      holder(t) || "-",
      clean(t.title) + (t.result ? ` → ${clean(t.result)}` : ""),
    ]),
    {
      ...opts,
      max: [6, 7, 16, 28],
      paintCell: (row, col, s) => {
        const colour = STATE_COLOUR[views[row]!];
        return col === 1 && colour ? p[colour](s) : s;
      },
    },
  );
}

/** What an action did, in a line. */
function said(args: TaskAction, result: OpResult<"task">): string {
  const t = result.task;
  const name = t ? `#${t.id} ${JSON.stringify(clean(t.title))}` : "";
  switch (args.action) {
    case "add":
      return t?.after.length
        ? `added ${name}, after ${t.after.map((a) => `#${a}`).join(", ")}`
        : `added ${name}`;
    case "assign": {
      if (result.sent === false)
        return `${name} not sent to ${args.to}: ${clean(result.reason ?? "not reached")}`;
      const to = t?.assigned ? `${clean(t.assigned.name)} (${t.assigned.id})` : args.to;
      return `${name} sent to ${to}: ${result.sent ?? "sent"}`;
    }
    case "drop":
      return `dropped ${name}`;
    default:
      return name;
  }
}

export const tasks: Command = {
  name: "tasks",
  aliases: ["task"],
  args: "[add TITLE | assign ID JOB | drop ID]",
  arity: [0, Infinity],
  summary: "Show the task board, or add, assign or drop a task; sessions claim and finish them.",
  details: [
    "The board is shared by every session (and the hub): each claims a task, does it and marks",
    "it done. STATE is open, blocked (open, but a task in its AFTER is not done or dropped yet),",
    "claimed, done or dropped; WHO is who holds it (or did it), or → whom it was sent to.",
    "  add TITLE         a new open task; --detail says more, --after names the tasks it waits on",
    "  assign ID JOB     sends the session (an id or a unique name) the task and how to claim it",
    "  drop ID           takes an open or claimed task off the board (its holder is told)",
    "--json: the daemon's answer: {tasks} (oldest first), with {task} (and {sent}) for an action.",
  ].join("\n"),
  options: {
    detail: { type: "string", value: "TEXT", help: "add: what the task is, at more length" },
    after: { type: "string", value: "IDS", help: "add: the tasks it waits on, e.g. 1,2" },
  },
  examples: [
    "roost tasks",
    'roost tasks add "write the release notes" --after 1,2',
    'roost tasks add "run the tests" --detail "npm test"',
    "roost tasks assign 3 j4",
    "roost tasks drop 3",
    "roost tasks --json",
  ],
  async run({ positionals, values, json, env }) {
    const args = actionOf(positionals, values);
    const result = await callOnce(env, "task", args);
    if (json) {
      printJson(result);
      return 0;
    }
    if (args.action !== "list") {
      out(said(args, result));
      return 0;
    }
    if (result.tasks.length === 0) {
      out('no tasks yet: try `roost tasks add "write the release notes"`');
      return 0;
    }
    const width = terminalWidth(io().stdout, env);
    for (const line of boardTable(result.tasks, { width, colour: wantsColour(io().stdout, env) })) out(line);
    return 0;
  },
};
