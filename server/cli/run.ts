/**
 * The `roost` command: `roost COMMAND [ARGS...]`. Finds the command, parses its options
 * (node:util parseArgs, strict), runs it, and turns every failure into one line on stderr:
 * `roost: <message>` and exit 1, or the command's usage and exit 64 when the command line is wrong
 * (errors.ts; with --json, the line is JSON). The process around it is main.ts's.
 */
import { parseArgs } from "node:util";
import { ROOST_VERSION } from "../version.js";
import { type Command, out, UsageError, type Values } from "./command.js";
import { attach } from "./commands/attach.js";
import { budget, spend } from "./commands/budget.js";
import { ask, concierge, orders } from "./commands/concierge.js";
import { daemon } from "./commands/daemon.js";
import { diff } from "./commands/diff.js";
import { dispatch } from "./commands/dispatch.js";
import { events } from "./commands/events.js";
import { hook } from "./commands/hook.js";
import { pin, rename, respawn, rm, stop, unpin } from "./commands/job-actions.js";
import { log } from "./commands/log.js";
import { ls } from "./commands/ls.js";
import { mcp } from "./commands/mcp.js";
import { merge } from "./commands/merge.js";
import { notify } from "./commands/notify.js";
import { overlaps } from "./commands/overlaps.js";
import { pi } from "./commands/pi.js";
import { profiles } from "./commands/profiles.js";
import { queue } from "./commands/queue.js";
import { remote } from "./commands/remote.js";
import { reply } from "./commands/reply.js";
import { schedule } from "./commands/schedule.js";
import { shutdown, start } from "./commands/start.js";
import { tasks } from "./commands/tasks.js";
import { open, token } from "./commands/token.js";
import { top } from "./commands/top.js";
import { reportError } from "./errors.js";
import { type CliIo, io, withIo } from "./io.js";
import { nearest } from "./suggest.js";
import { commandHelp, commonOptions, overallHelp, usageLine } from "./usage.js";

const help: Command = {
  name: "help",
  args: "[COMMAND]",
  arity: [0, 1],
  json: false,
  summary: "Show the commands, or one command's usage, options and examples.",
  examples: ["roost help dispatch"],
  async run({ positionals: [name] }) {
    if (name === undefined) {
      out(overallHelp(COMMANDS));
      return 0;
    }
    const cmd = find(name);
    if (!cmd) throw noCommand(name);
    out(commandHelp(cmd));
    return 0;
  },
};

const COMMANDS: readonly Command[] = [
  ls,
  top,
  dispatch,
  reply,
  attach,
  log,
  stop,
  rm,
  respawn,
  pin,
  unpin,
  rename,
  diff,
  merge,
  overlaps,
  queue,
  budget,
  spend,
  profiles,
  tasks,
  concierge,
  ask,
  orders,
  pi,
  mcp,
  hook,
  events,
  schedule,
  notify,
  open,
  token,
  remote,
  start,
  shutdown,
  daemon,
  help,
];

const find = (name: string) => COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));

function noCommand(name: string): UsageError {
  const meant = nearest(
    name,
    COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]),
  );
  return new UsageError(
    `no command ${JSON.stringify(name)}${meant ? `: did you mean \`roost ${meant}\`?` : ""} (\`roost help\` lists them)`,
  );
}

/** parseArgs's words for an unknown option are long and end in a half-quoted example: shorter, with a guess. */
function unknownOption(cmd: Command, option: string): UsageError {
  const meant = option.startsWith("--")
    ? nearest(option.slice(2), Object.keys({ ...cmd.options, ...commonOptions(cmd) }))
    : null;
  if (meant) return new UsageError(`unknown option ${option}: did you mean --${meant}?`);
  return new UsageError(`unknown option ${option} (a TEXT that starts with "-" goes after \`--\`)`);
}

/** Whether the command line asks for JSON (before any `--`): its errors are JSON then too. */
function asksForJson(cmd: Command | undefined, argv: readonly string[]): boolean {
  const beforeDashes = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  return cmd?.json !== false && beforeDashes.includes("--json");
}

/** Parses argv for `cmd`; --help (anywhere before `--`) wins over everything else on the line. */
function parse(cmd: Command, argv: string[]): { positionals: string[]; values: Values } | "help" {
  const beforeDashes = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (beforeDashes.some((a) => a === "--help" || a === "-h")) return "help";
  let parsed: { positionals: string[]; values: Values };
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...cmd.options, ...commonOptions(cmd) },
      allowPositionals: true,
      strict: true,
    }) as { positionals: string[]; values: Values };
  } catch (err) {
    const unknown = /^Unknown option '([^']+)'/.exec((err as Error).message);
    throw unknown ? unknownOption(cmd, unknown[1]!) : new UsageError((err as Error).message);
  }
  const [min, max] = cmd.arity;
  const n = parsed.positionals.length;
  if (n < min) throw new UsageError(`${cmd.name} needs ${cmd.args}`);
  if (n > max)
    throw new UsageError(
      max === 0
        ? `${cmd.name} takes no arguments (got ${JSON.stringify(parsed.positionals[0])})`
        : `${cmd.name} takes ${cmd.args}, not ${n} arguments`,
    );
  return parsed;
}

function fail(err: unknown, cmd: Command | undefined, json: boolean): number {
  const usage = `${cmd ? usageLine(cmd) : "usage: roost COMMAND [ARGS...]"}\n(\`roost ${cmd ? `${cmd.name} ` : ""}--help\` says more)\n`;
  return reportError(err, { json, usage });
}

/**
 * `roost ARGV...` with `env` as its environment: its exit code. Its output goes to `given`'s
 * streams when given (a command run inside another program, as the tests do: io.ts), else to the
 * process's.
 */
export function runCli(argv: string[], env: NodeJS.ProcessEnv, given?: CliIo): Promise<number> {
  return given ? withIo(given, () => main(argv, env)) : main(argv, env);
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") {
    const text = overallHelp(COMMANDS);
    if (name === undefined) {
      io().stderr.write(`${text}\n`);
      return 64;
    }
    out(text);
    return 0;
  }
  if (name === "--version" || name === "-V") {
    out(`roost ${ROOST_VERSION}`);
    return 0;
  }
  const cmd = find(name);
  try {
    if (!cmd) throw noCommand(name);
    const parsed = parse(cmd, rest);
    if (parsed === "help") {
      out(commandHelp(cmd));
      return 0;
    }
    return await cmd.run({ ...parsed, json: parsed.values.json === true, env });
  } catch (err) {
    return fail(err, cmd, asksForJson(cmd, rest));
  }
}
