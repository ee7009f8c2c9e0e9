/**
 * Whether a profile's program can run here: found as the pty host will find it (an absolute or
 * relative path as it is, a bare name on the job's PATH) and executable. A profile whose program
 * is missing is offered as "not installed" and refused by `dispatch` before a row is made.
 */
import fs from "node:fs";
import path from "node:path";
import type { Profile } from "../../config.js";

/** The PATH the pty host gives a job whose environment has none. */
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

const executable = (file: string): boolean => {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The program's file, or null when it is not there (or not executable). */
export function findProgram(program: string, pathVar: string, cwd: string): string | null {
  if (program.includes("/")) {
    const file = path.resolve(cwd, program);
    return executable(file) ? file : null;
  }
  for (const dir of pathVar.split(":")) {
    if (!dir) continue;
    const file = path.join(dir, program);
    if (executable(file)) return file;
  }
  return null;
}

/** Why the profile cannot run in `cwd` (the job's) ("`claude` is not installed: not on the PATH"), or null when it can. */
export function missingProgram(profile: Profile, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const program = profile.command[0]!;
  const pathVar = profile.env?.PATH ?? env.PATH ?? DEFAULT_PATH;
  if (findProgram(program, pathVar, cwd)) return null;
  return program.includes("/")
    ? `${program} is not installed: no executable file there`
    : `${program} is not installed: not found on the PATH`;
}
