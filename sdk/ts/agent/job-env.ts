/**
 * The job a process speaks for, as roost set it in its environment (docs/protocol.md, "The job's
 * identity"), and roost's socket for a process roost did not start. Node builtins only.
 */
import os from "node:os";
import path from "node:path";

/**
 * The job this process speaks for, as roost set it in the environment. A foreground session (one
 * roost did not start) has no id or token until `register` gives it both.
 */
export interface JobEnv {
  id: string;
  token: string;
  socket: string;
  /** The job's directory (`agent.json` in it is the client's); null when not set. */
  dir: string | null;
}

/** roost's socket, for a process roost did not start: ROOST_SOCKET, else $ROOST_HOME/roost.sock, else ~/.roost/roost.sock. */
export function findSocket(env: NodeJS.ProcessEnv = process.env): string {
  const socket = env.ROOST_SOCKET || env.PI_DAEMON_SOCK;
  if (socket) return socket;
  return path.join(env.ROOST_HOME || path.join(os.homedir(), ".roost"), "roost.sock");
}

/**
 * The job from the environment (the new names first, then the older `PI_*` ones), or null when
 * this process was not started by roost (no job id). A job id without a token or a socket is an
 * error: roost always sets all of them.
 */
export function findJob(env: NodeJS.ProcessEnv = process.env): JobEnv | null {
  const read = (name: string, old: string) => env[name] || env[old] || undefined;
  const id = read("ROOST_JOB_ID", "PI_JOB_ID");
  if (!id) return null;
  const token = read("ROOST_JOB_TOKEN", "PI_JOB_TOKEN");
  const socket = read("ROOST_SOCKET", "PI_DAEMON_SOCK");
  if (!token || !socket)
    throw new Error(`roost job ${id}: ROOST_JOB_TOKEN and ROOST_SOCKET must be set with ROOST_JOB_ID`);
  return { id, token, socket, dir: read("ROOST_JOB_DIR", "PI_JOB_DIR") ?? null };
}

/** The job's identity in the environment, under both names (`findJob` reads them). */
const JOB_VARIABLES = [
  "ROOST_JOB_ID",
  "ROOST_JOB_TOKEN",
  "ROOST_JOB_DIR",
  "PI_JOB_ID",
  "PI_JOB_TOKEN",
  "PI_JOB_DIR",
];

/**
 * `env` without the job's identity (changed in place, and returned): for the processes an agent
 * starts, which are not the job and must not speak for it. The socket stays.
 */
export function withoutJob(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  for (const name of JOB_VARIABLES) delete env[name];
  return env;
}
