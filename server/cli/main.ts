#!/usr/bin/env node
/**
 * The `roost` command's process: run.ts's `runCli` with this process's arguments, environment and
 * streams, and its exit code.
 */
import { runCli } from "./run.js";

// Output piped into `head` that stops reading: not an error worth a stack trace.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

const code = await runCli(process.argv.slice(2), process.env);
// A daemon that failed while starting may hold handles open (its pty host's connection): a
// failure ends the process now. Success ends it when its work is done (or never, for the daemon).
if (code !== 0) process.exit(code);
