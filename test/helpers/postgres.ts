/**
 * A real PostgreSQL server for the shared board's tests: Debian's package (.ci/run installs it),
 * a fresh cluster in a temp directory on a free local port, stopped and removed at teardown. A
 * machine without it fails the tests that need it, saying so: nothing is skipped.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./processes.js";

export interface TestPostgres {
  port: number;
  /** A url for a new, empty database of its own. */
  database(name: string): Promise<string>;
  /** Stops the server (`-m immediate`), its data kept, and starts it again. */
  stop(): void;
  start(): void;
  /**
   * Freezes the server (SIGSTOP of it and every process of its, by pid): its connections stay
   * open and nothing answers, as a partition looks; `thaw` (SIGCONT) lets it go on.
   */
  freeze(): void;
  thaw(): void;
  cleanup(): void;
}

/** Debian's newest installed PostgreSQL's programs, or an error that says what to install. */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, "bin/initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error(
      "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): the shared board's tests need it; apt-get install postgresql (.ci/run does)",
    );
  return path.join(root, versions[0]!, "bin");
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  // PostgreSQL refuses to run as root: as root, its programs run as the postgres user.
  const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  const run = (program: string, args: string[]) => {
    const argv = [...asPostgres, path.join(bin, program), ...args];
    execFileSync(argv[0]!, argv.slice(1), { stdio: "pipe" });
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-pg-"));
  if (asPostgres.length > 0) execFileSync("chown", ["postgres:", dir]);
  const data = path.join(dir, "data");
  const log = path.join(dir, "log");
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
  let port = 0;
  const start = () => {
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    const logged = fs.existsSync(log) ? fs.statSync(log).size : 0;
    try {
      run("pg_ctl", ["-D", data, "-o", options, "-l", log, "-w", "start"]);
    } catch (e) {
      // pg_ctl only says "Examine the log output": the server's own words are in the log.
      const said = fs.readFileSync(log, "utf8").slice(logged).trim();
      throw Object.assign(new Error(`PostgreSQL did not start on port ${port}: ${said || String(e)}`), {
        portTaken: said.includes("could not bind"),
      });
    }
  };
  const stop = () => run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  // The free port is free when asked, not necessarily when the server binds it: another test's
  // daemon may take it meanwhile. A port taken is asked again; any other failure says why.
  for (let tries = 1; ; tries++) {
    port = await freePort();
    try {
      start();
      break;
    } catch (e) {
      if (!(e as { portTaken?: boolean }).portTaken || tries === 5) throw e;
    }
  }
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let frozen: number[] = [];
  const thaw = () => {
    for (const pid of frozen.splice(0)) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // ended meanwhile
      }
    }
  };
  /** The server's processes: the postmaster (its pid file's first line) and its children. */
  const processes = (): number[] => {
    const main = Number(fs.readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = fs
      .readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          // The parent's pid is the fourth field, after the name in parentheses.
          const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === main;
        } catch {
          return false; // gone meanwhile
        }
      })
      .map(Number);
    return [main, ...children];
  };
  return {
    port,
    async database(name) {
      const c = new pg.Client({ connectionString: url("postgres") });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE "${name}"`);
      } finally {
        await c.end();
      }
      return url(name);
    },
    stop,
    start,
    freeze() {
      // The postmaster first, so that it starts no process after the children were listed.
      const [main, ...children] = processes();
      process.kill(main!, "SIGSTOP");
      frozen = [main!, ...children, ...processes().slice(1)];
      for (const pid of frozen) process.kill(pid, "SIGSTOP");
    },
    thaw,
    cleanup() {
      try {
        thaw();
        stop();
      } catch {
        // stopped already
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
