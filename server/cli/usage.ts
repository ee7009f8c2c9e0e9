/** Help text: one command's (usage, what it does, options, examples) and the list of them all. */
import type { Command, OptionSpec } from "./command.js";

/** The options every command has, after its own. */
export function commonOptions(cmd: Command): Record<string, OptionSpec> {
  const common: Record<string, OptionSpec> = {};
  if (cmd.json !== false) common.json = { type: "boolean", help: "machine output: the result as JSON" };
  common.help = { type: "boolean", short: "h", help: "this help" };
  return common;
}

const optionWords = (name: string, spec: OptionSpec) =>
  `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.value ? ` ${spec.value}` : ""}`;

export function usageLine(cmd: Command): string {
  const own = Object.entries(cmd.options ?? {}).map(
    ([name, spec]) => `[--${name}${spec.value ? ` ${spec.value}` : ""}]`,
  );
  if (cmd.json !== false) own.push("[--json]");
  return ["usage: roost", cmd.name, cmd.args, ...own].filter(Boolean).join(" ");
}

export function commandHelp(cmd: Command): string {
  const options = Object.entries({ ...cmd.options, ...commonOptions(cmd) });
  const width = Math.max(...options.map(([name, spec]) => optionWords(name, spec).length));
  const lines = [usageLine(cmd), "", cmd.summary];
  if (cmd.details) lines.push(cmd.details);
  if (cmd.aliases?.length) lines.push(`(also: roost ${cmd.aliases.join(", roost ")})`);
  lines.push("", "options:");
  for (const [name, spec] of options) lines.push(`  ${optionWords(name, spec).padEnd(width)}  ${spec.help}`);
  lines.push("", cmd.examples.length > 1 ? "examples:" : "example:");
  for (const ex of cmd.examples) lines.push(`  ${ex}`);
  return lines.join("\n");
}

export function overallHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "usage: roost COMMAND [ARGS...] [--json] [--help]",
    "",
    "roost runs coding agents as jobs, each in its own terminal, and shows each as a row.",
    "",
    "commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "`roost COMMAND --help` says more about one. The daemon lives in $ROOST_HOME (default ~/.roost)",
    "and listens on $ROOST_SOCKET (default $ROOST_HOME/roost.sock).",
    "",
    "--json: the result as JSON on stdout; a failure as one line of JSON on stderr,",
    '{"ok":false,"code":"not_found","error":"..."}: the daemon\'s code (not_found, bad_request,',
    "conflict, ...), or usage, not_running, error. Exit 1 on a failure, 64 on a wrong command line.",
    "",
    "example:",
    "  roost start && roost dispatch shell 'ls -la' && roost ls",
  ].join("\n");
}
