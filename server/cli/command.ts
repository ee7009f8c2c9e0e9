import { io } from "./io.js";
/**
 * What a `roost` command is: its words, options and help, and a `run` that returns the exit code.
 * The errors here carry their exit codes, so `main` turns any failure into one line and a code.
 */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** The value's placeholder in the help, e.g. "DIR". */
  value?: string;
  help: string;
}

export type Values = Record<string, string | boolean | undefined>;

export interface Invocation {
  positionals: string[];
  values: Values;
  json: boolean;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  name: string;
  aliases?: readonly string[];
  /** The positionals as the usage line shows them, e.g. "PROFILE [TASK...]". */
  args?: string;
  /** How many positionals it takes (max Infinity for a trailing TEXT...). */
  arity: readonly [min: number, max: number];
  summary: string;
  /** More lines for the command's own help, after the summary. */
  details?: string;
  options?: Record<string, OptionSpec>;
  /** False for the commands with nothing to print as JSON (daemon, help). */
  json?: boolean;
  examples: readonly string[];
  run(inv: Invocation): Promise<number>;
}

/** A failure to report as `roost: <message>`, exit 1 (or the given code). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The command line is wrong: the message, then the command's usage; exit 64 (EX_USAGE). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 64);
  }
}

export const str = (v: Values, key: string): string | undefined =>
  typeof v[key] === "string" ? (v[key] as string) : undefined;

/** Writes one line to stdout. */
export const out = (line = ""): void => {
  io().stdout.write(`${line}\n`);
};

export const printJson = (value: unknown): void => out(JSON.stringify(value));
