/**
 * `roost start` and `roost shutdown`: the daemon in the background. `start` checks the home as
 * the daemon does (home.ts), runs `roost daemon` detached (its own session, its output to
 * $ROOST_HOME/daemon.log) and returns once the socket answers; `shutdown` asks it to stop and waits until it has.
 */
import fs from "node:fs";
import { startDetached, whenAnswers } from "../../detached.js";
import { secureHome } from "../../home.js";
import { BUILT, roostPaths } from "../../paths.js";
import { CliError, type Command, out, printJson } from "../command.js";
import { answers, connect, NotRunning } from "../connect.js";

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;
const POLL_MS = 50;
const LOG_TAIL_LINES = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `p`, or `ms` at most, leaving no timer behind to hold the process open. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((r) => {
    timer = setTimeout(r, ms);
  });
  await Promise.race([p, timeout]);
  clearTimeout(timer);
}

/** The last lines the daemon wrote to its log from byte `from` on (this start's, not older ones). */
function logTail(file: string, from: number): string {
  try {
    const text = fs.readFileSync(file).subarray(from).toString("utf8").trimEnd();
    return text.split("\n").slice(-LOG_TAIL_LINES).join("\n") || "(the log is empty)";
  } catch (err) {
    return `(no log: ${(err as Error).message})`;
  }
}

export const start: Command = {
  name: "start",
  arity: [0, 0],
  summary: "Start the daemon in the background; returns once it answers.",
  details:
    "Its output goes to $ROOST_HOME/daemon.log. Already running is not an error; a daemon that\n" +
    "exits while starting is, and the end of its log is printed.",
  examples: ["roost start"],
  async run({ json, env }) {
    const paths = roostPaths(env);
    secureHome(paths.home, paths.socket); // as the daemon would, before writing its log there
    if (await answers(paths.socket)) {
      if (json) printJson({ started: false, running: true, socket: paths.socket, home: paths.home });
      else out(`roost is already running (listening on ${paths.socket})`);
      return 0;
    }
    const { child, logFrom: from } = startDetached(BUILT.cli, ["daemon"], {
      log: paths.daemonLog,
      cwd: paths.home,
      // Absolute paths, so the daemon finds the same home from its own working directory.
      env: { ...env, ROOST_HOME: paths.home, ...(env.ROOST_SOCKET ? { ROOST_SOCKET: paths.socket } : {}) },
    });
    let exited: string | null = null;
    child.on("error", (err) => {
      exited = `could not be run: ${err.message}`;
    });
    child.on("exit", (code, signal) => {
      exited = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    });
    const answered = await whenAnswers(() => answers(paths.socket), {
      ms: START_TIMEOUT_MS,
      everyMs: POLL_MS,
      gone: () => exited !== null,
    });
    child.unref();
    if (answered) {
      if (json)
        printJson({
          started: true,
          running: true,
          pid: child.pid,
          socket: paths.socket,
          home: paths.home,
          log: paths.daemonLog,
        });
      else out(`roost started (pid ${child.pid}): listening on ${paths.socket}; log ${paths.daemonLog}`);
      return 0;
    }
    const why =
      exited ?? `(pid ${child.pid}) did not answer on ${paths.socket} within ${START_TIMEOUT_MS / 1000} s`;
    throw new CliError(
      `the daemon ${why}; the end of ${paths.daemonLog}:\n${logTail(paths.daemonLog, from)}`,
    );
  },
};

export const shutdown: Command = {
  name: "shutdown",
  arity: [0, 0],
  summary: "Stop the daemon; the jobs keep running and are found again by the next start.",
  details: "Returns once the socket no longer answers. Not running is not an error.",
  examples: ["roost shutdown"],
  async run({ json, env }) {
    const { socket } = roostPaths(env);
    let client: Awaited<ReturnType<typeof connect>>;
    try {
      client = await connect(env);
    } catch (err) {
      // Already stopped is what the user asked for: said, but not a failure (as `start` when running).
      if (!(err instanceof NotRunning)) throw err;
      if (json) printJson({ stopped: false, running: false, socket });
      else out(`roost is not running (no answer on ${socket})`);
      return 0;
    }
    const closed = new Promise<void>((resolve) => {
      client.onClose = resolve;
    });
    try {
      await client.call("shutdown", {});
    } catch (err) {
      client.close();
      throw err;
    }
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    await within(closed, STOP_TIMEOUT_MS);
    client.close();
    while (await answers(socket)) {
      if (Date.now() > deadline) throw new CliError(`roost said it would stop, but ${socket} still answers`);
      await sleep(POLL_MS);
    }
    if (json) printJson({ stopped: true, running: false, socket });
    else out("roost stopped (the jobs keep running)");
    return 0;
  },
};
