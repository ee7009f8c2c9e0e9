// What a spawn request asks of the pty host, each field checked (params.ts), and the command it
// names found: on its PATH (or the default one), from its cwd, executable.
import * as fs from "node:fs";
import * as path from "node:path";
import { dim, int, jobIdOf, type Msg, str, stringMap, strings } from "./params.js";
import { DEFAULT_QUIET_MS, DEFAULT_SCROLLBACK, DEFAULT_TRANSCRIPT_BYTES } from "./wire.js";

const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** A spawn request's fields, each checked (params.ts). */
export function spawnSpecOf(m: Msg) {
  const jobId = jobIdOf(m);
  const [file, cwd, cols, rows] = [str(m, "file"), str(m, "cwd"), dim(m, "cols"), dim(m, "rows")];
  const [args, env] = [strings(m, "args"), stringMap(m, "env")];
  const scrollback = int(m, "scrollback", 0, 100_000, DEFAULT_SCROLLBACK);
  const quietMs = int(m, "quietMs", 1, 3_600_000, DEFAULT_QUIET_MS);
  const transcriptBytes = int(m, "transcriptBytes", 1, 2 ** 40, DEFAULT_TRANSCRIPT_BYTES);
  const wrappers = int(m, "wrappers", 0, 4, 0);
  return { jobId, file, cwd, cols, rows, args, env, scrollback, quietMs, transcriptBytes, wrappers };
}

/** The command's path, once its cwd is known to be a directory. */
export function commandOf({
  file,
  cwd,
  env,
}: {
  file: string;
  cwd: string;
  env: Record<string, string>;
}): string {
  if (!path.isAbsolute(cwd) || !fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`cwd not found: ${cwd}`);
  }
  const resolved = resolveFile(file, env, cwd);
  if (!resolved) throw new Error(`command not found: ${file}`);
  return resolved;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

// Resolved here so a missing command is an answer, not a job that prints "execvp failed" and exits 1.
function resolveFile(file: string, env: Record<string, string>, cwd: string): string | null {
  if (file.includes("/")) {
    const p = path.resolve(cwd, file);
    return isExecutable(p) ? p : null;
  }
  for (const dir of (env.PATH ?? DEFAULT_PATH).split(":")) {
    const p = path.resolve(cwd, dir, file);
    if (isExecutable(p)) return p;
  }
  return null;
}
