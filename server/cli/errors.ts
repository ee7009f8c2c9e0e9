/**
 * How the CLI says a failure: one line on stderr, `roost: <message>`, and an exit code (64 for a
 * wrong command line, else 1 or the error's own).
 */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { CliError, UsageError } from "./command.js";
import { NotRunning } from "./connect.js";

/** Says `err` on stderr; its exit code. `usage`: the lines after a usage error's message. */
export function reportError(err: unknown, opts: { json: boolean; id?: string; usage?: string }): number {
  const about = opts.id !== undefined ? `${opts.id}: ` : "";
  if (err instanceof UsageError) process.stderr.write(`roost: ${err.message}\n${opts.usage ?? ""}`);
  else if (err instanceof NotRunning) process.stderr.write(`${err.message}\n`);
  // The wire's code too: a script can match on it, a person sees what kind of no it was.
  else if (err instanceof RoostError) process.stderr.write(`roost: ${about}${err.code}: ${err.message}\n`);
  else process.stderr.write(`roost: ${about}${(err as Error)?.message ?? String(err)}\n`);
  return err instanceof CliError ? err.exitCode : 1;
}
