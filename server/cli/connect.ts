/** Reaching the daemon: its socket from roostPaths, and one clear message when nothing answers. */
import { SocketClient } from "../../sdk/ts/client/socket-client.js";
import type { OpArgs, OpName, OpResult } from "../../sdk/ts/protocol/index.js";
import { checkSocket } from "../home.js";
import { roostPaths } from "../paths.js";
import { CliError } from "./command.js";

/** What a socket with no daemon behind it looks like to connect(). */
const NOBODY_THERE = new Set(["ENOENT", "ECONNREFUSED", "ENOTSOCK"]);

export class NotRunning extends CliError {
  constructor(readonly socket: string) {
    super(`roost is not running (no answer on ${socket}): start it with \`roost start\``);
  }
}

/**
 * A connection to the daemon's socket, once it is known that only this user can have made it
 * (home.ts): what the CLI sends (tasks, replies, keys) must not go to a socket another user put
 * in a directory they can write, nor what it shows come from one.
 */
export async function connect(env: NodeJS.ProcessEnv): Promise<SocketClient> {
  const { socket } = roostPaths(env);
  checkSocket(socket);
  try {
    return await SocketClient.connect(socket);
  } catch (err) {
    if (NOBODY_THERE.has((err as NodeJS.ErrnoException).code ?? "")) throw new NotRunning(socket);
    throw new CliError(`cannot reach roost on ${socket}: ${(err as Error).message}`);
  }
}

/** One op on a connection of its own. */
export async function callOnce<K extends OpName>(
  env: NodeJS.ProcessEnv,
  op: K,
  args: OpArgs<K>,
): Promise<OpResult<K>> {
  const client = await connect(env);
  try {
    return await client.call(op, args);
  } finally {
    client.close();
  }
}

export { socketAnswers as answers } from "../../sdk/ts/client/socket-client.js";
