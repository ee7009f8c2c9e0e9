/**
 * How the CLI says a failure, on stderr, with an exit code (64 for a wrong command line, else 1
 * or the error's own). For a person: `roost: <message>`, the message saying what to do. With
 * --json: one line, `{"ok":false,"code":...,"error":...}`, so a script reads every answer as
 * JSON; the code is the wire's (`not_found`, `bad_request`, ...) when the daemon said no, else
 * the CLI's own: `usage` (the command line is wrong), `not_running` (nothing answers on the
 * socket), `error` (anything else).
 */
import { RoostError } from "../../sdk/ts/protocol/errors.js";
import { CliError, UsageError } from "./command.js";
import { NotRunning } from "./connect.js";
import { io } from "./io.js";

export function errorCode(err: unknown): string {
  if (err instanceof RoostError) return err.code;
  if (err instanceof UsageError) return "usage";
  if (err instanceof NotRunning) return "not_running";
  return "error";
}

/**
 * The daemon's error in the CLI's words: its message speaks of the wire's args (`rm with force`,
 * `launch: {profile}`), which a person at the command line does not type. Each `[wire, cli]` pair
 * replaces the first with the second; the code stays the wire's. Anything else is left as it is.
 */
export function inCliWords(err: unknown, words: readonly (readonly [string, string])[]): unknown {
  if (!(err instanceof RoostError)) return err;
  let message = err.message;
  for (const [wire, cli] of words) message = message.split(wire).join(cli);
  return message === err.message ? err : new RoostError(err.code, message);
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Says `err` on stderr; returns its exit code. `id`: the job it was about, when one of several;
 * `usage`: the lines a person is shown after a usage error's message.
 */
export function reportError(err: unknown, opts: { json: boolean; id?: string; usage?: string }): number {
  const exitCode = err instanceof CliError ? err.exitCode : 1;
  if (opts.json) {
    const said = {
      ok: false,
      ...(opts.id !== undefined ? { id: opts.id } : {}),
      code: errorCode(err),
      error: messageOf(err),
    };
    io().stderr.write(`${JSON.stringify(said)}\n`);
    return exitCode;
  }
  if (err instanceof NotRunning) io().stderr.write(`${err.message}\n`);
  else {
    const about = opts.id !== undefined ? `${opts.id}: ` : "";
    io().stderr.write(`roost: ${about}${messageOf(err)}\n`);
  }
  if (err instanceof UsageError && opts.usage) io().stderr.write(opts.usage);
  return exitCode;
}
