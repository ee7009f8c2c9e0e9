/**
 * The `roost` CLI as a user runs it, for tests: its exit code and what it printed. The commands
 * that only ask the daemon and print run in the test's process (server/cli/run.ts, the code the
 * built command runs); the others, and any test of the command's process, run the built command
 * (dist/server/cli/main.js, so `npm run build` first) in a process of its own.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn as ptySpawn } from "@lydell/node-pty";
import { runCli } from "../../server/cli/run.js";
import { CLI } from "./daemon.js";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `roost ARGS...`: its exit code and output. A command that only asks the daemon and prints
 * (ASKS_AND_PRINTS) runs in this process, with nothing on stdin; any other, or one given `stdin`,
 * in a process of its own (`roostProcess`).
 */
export function roost(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  stdin?: string,
): Promise<Ran> {
  return stdin === undefined && asksAndPrints(args)
    ? roostHere(args, env, cwd)
    : roostProcess(args, env, cwd, stdin);
}

/** `roost ARGS...` in a process of its own: its exit code (-1 for a signal) and output; `stdin` written to it and closed. */
export function roostProcess(
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

/**
 * The commands that only ask the daemon and print its answer: `roost`, `ok` and `json` run them in this
 * process (server/cli/run.ts's `runCli`, the same code as the built command's, its output caught
 * here), sparing each a process of its own (0.15–0.2 s of CPU, hundreds in a suite run). The
 * others start or end processes, open a terminal or a browser, or read stdin: a process each
 * (`roostProcess`), as does a test of the command's process itself.
 */
const ASKS_AND_PRINTS = new Set([
  "ls",
  "dispatch",
  "reply",
  "log",
  "stop",
  "rm",
  "respawn",
  "pin",
  "unpin",
  "rename",
  "diff",
  "merge",
  "overlaps",
  "queue",
  "budget",
  "spend",
  "profiles",
  "tasks",
  "concierge",
  "ask",
  "orders",
  "events",
  "schedule",
  "notify",
  "remote",
  "token",
  "help",
]);

/** `roost ARGS...` run in this process (for the commands of ASKS_AND_PRINTS): its exit code and output. */
export async function roostHere(args: string[], env: Record<string, string>, cwd?: string): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const text = (t: string | Uint8Array) => (typeof t === "string" ? t : Buffer.from(t).toString());
  const code = await runCli(args, env, {
    stdout: {
      write: (t) => {
        stdout += text(t);
      },
    },
    stderr: {
      write: (t) => {
        stderr += text(t);
      },
    },
    cwd: () => cwd ?? process.cwd(),
  });
  return { code, stdout, stderr };
}

/** Whether `roost ARGS...` runs in this process: it asks and prints, and does not follow (which never ends). */
const asksAndPrints = (args: string[]) =>
  args[0] !== undefined && ASKS_AND_PRINTS.has(args[0]) && !args.includes("--follow") && !args.includes("-f");

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
