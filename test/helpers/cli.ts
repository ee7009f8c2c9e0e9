/**
 * The `roost` CLI as a user runs it, for tests: the built command (dist/server/cli/main.js, so
 * `npm run build` first) in a process of its own, its exit code and what it printed.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn as ptySpawn } from "@lydell/node-pty";
import { CLI } from "./daemon.js";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `roost ARGS...`: its exit code (-1 for a signal) and output; `stdin` written to it and closed. */
export function roost(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  stdin?: string,
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env, cwd, timeout: 60000 },
      (err, stdout, stderr) => {
        const code = err ? (err as { code?: unknown }).code : 0;
        resolve({ code: typeof code === "number" ? code : -1, stdout, stderr });
      },
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

/** `roost ARGS...` at a terminal of its own: everything it wrote there, once it has exited. */
export function atTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const term = ptySpawn(process.execPath, [CLI, ...args], { cols: 160, rows: 40, env });
  let seen = "";
  term.onData((data) => {
    seen += data;
  });
  return new Promise((resolve) => term.onExit(() => resolve(seen)));
}

/** `roost ...` that must succeed: its stdout. */
export async function ok(args: string[], env: Record<string, string>, cwd?: string): Promise<string> {
  const r = await roost(args, env, cwd);
  if (r.code !== 0) throw new Error(`roost ${args.join(" ")} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** `roost ... --json` that must succeed, parsed. */
export const json = async (args: string[], env: Record<string, string>): Promise<any> =>
  JSON.parse(await ok([...args, "--json"], env));

/** One job's row, as `roost ls ID --json` prints it. */
export const rowOf = async (env: Record<string, string>, id: string): Promise<any> =>
  (await json(["ls", id], env)).rows[0];

/**
 * The shell profile runs $SHELL, interactive: a user's rc files (which may take seconds, e.g. a
 * version manager's init) are not what these tests are about, so it is plain sh here.
 */
export const PLAIN_SHELL = { SHELL: "/bin/sh" };

/** This process's environment without roost's variables: what a user's shell would pass. */
export function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith("ROOST_")) env[k] = v;
  return env;
}

/** An environment with no daemon behind it: a fresh temp home, no other ROOST_ variables. */
export function freshEnv(): { home: string; env: Record<string, string> } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-cli-"));
  const env = userEnv();
  Object.assign(env, PLAIN_SHELL, { ROOST_HOME: home, ROOST_STOP_GRACE_MS: "1000", ROOST_PORT: "0" });
  return { home, env };
}

/** Fails fast, with what to do, when the CLI has not been built. */
export function needsBuild(): void {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
}
