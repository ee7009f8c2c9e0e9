/**
 * Where a `roost` command writes, and the directory it runs in: the process's own streams and
 * working directory, or, for a command run inside another program (`runCli`), the ones that
 * program gives it. Commands ask `io()` rather than naming `process.stdout`, so that a test can
 * run one in its own process and read what it wrote, as a user's terminal would have shown it.
 *
 * A command's whole run, its awaits included, sees the streams it was started with (async local
 * storage), so that two commands run at once in one program never write into each other's.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A stream a command writes to: what it asks of one (a pipe, a file, a terminal). */
export interface CliStream {
  write(text: string | Uint8Array): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  cwd(): string;
}

const PROCESS_IO: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: () => process.cwd(),
};

const running = new AsyncLocalStorage<CliIo>();

/** The streams and directory of the command running now. */
export function io(): CliIo {
  return running.getStore() ?? PROCESS_IO;
}

/** Runs `fn` (a command) writing to `given`'s streams, in its directory. */
export function withIo<T>(given: CliIo, fn: () => Promise<T>): Promise<T> {
  return running.run(given, fn);
}
