/**
 * Where things live (docs/design.md, "The home is its owner's alone"). home.ts checks each before
 * roost uses it (ours, writable by no one else) and names them again, for the pty host.
 */
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "./version.js";

/** What the faces call this daemon among its remotes (`roost ls --daemon local`, the hub's filter). */
export const LOCAL_DAEMON = "local";

/** roost's extension for pi, as built (sdk/ts/pi): the `pi` profile loads it, `roost pi install` links it. */
export const PI_EXTENSION = path.join(PACKAGE_ROOT, "dist/sdk/ts/pi/index.js");

/**
 * roost's programs as built, named from the package's root rather than from the module that
 * starts them: the build bundles the CLI (scripts/finish-build.mjs), so a module's code no longer
 * sits where its source file says.
 */
export const BUILT = {
  /** The `roost` command; the daemon is `roost daemon`. */
  cli: path.join(PACKAGE_ROOT, "dist/server/cli/main.js"),
  /** The pty host (server/pty/host.ts), `node host.js <ROOST_HOME>`. */
  ptyHost: path.join(PACKAGE_ROOT, "dist/server/pty/host.js"),
  /** The store's checkpoint thread (server/store/checkpointer.ts). */
  checkpointer: path.join(PACKAGE_ROOT, "dist/server/store/checkpointer.js"),
};

export interface Paths {
  home: string;
  config: string;
  db: string;
  socket: string;
  token: string;
  ptySocket: string;
  daemonLog: string;
  jobsDir: string;
  /** The jobs' git worktrees, each `<job-id>` (docs/worktrees.md). */
  worktreesDir: string;
  /** Snapshots of the jobs' worktrees, compared for overlaps (worktrees/overlaps.ts); cleared at start. */
  overlapsDir: string;
}

export function roostPaths(env: NodeJS.ProcessEnv = process.env): Paths {
  const home = path.resolve(env.ROOST_HOME || path.join(userHome(env), ".roost"));
  return {
    home,
    config: path.join(home, "roost.json"),
    db: path.join(home, "roost.db"),
    socket: path.resolve(env.ROOST_SOCKET || path.join(home, "roost.sock")),
    token: path.join(home, "token"),
    ptySocket: path.join(home, "pty.sock"),
    daemonLog: path.join(home, "daemon.log"),
    jobsDir: path.join(home, "jobs"),
    worktreesDir: path.join(home, "worktrees"),
    overlapsDir: path.join(home, "overlaps"),
  };
}

export const jobDir = (p: Paths, id: string) => path.join(p.jobsDir, id);

/** The user's home directory, as this environment says (a daemon's, which may not be its process's). */
export const userHome = (env: NodeJS.ProcessEnv) => env.HOME || os.homedir();

/** `~` and `~/x` as the user's home (`userHome`), as a shell would. */
export function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  if (p.startsWith("~/")) return path.join(home, p.slice(2));
  return p;
}
