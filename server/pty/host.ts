// The roost pty host: holds every job's pseudo-terminal so the daemon can crash or restart while
// jobs keep running. Run as `node host.js <ROOST_HOME>`. It must stay small and independent of the
// rest of roost (node builtins, node-pty and ./wire.js only), because a running host is never
// upgraded in place: jobs live exactly as long as it does.
import * as fs from "node:fs";
import * as net from "node:net";
import { constants as osConstants } from "node:os";
import * as path from "node:path";
import { type IPty, spawn as ptySpawn } from "@lydell/node-pty";
import {
  type ExitInfo,
  type HostMessage,
  type Op,
  type OpResult,
  PROTOCOL_VERSION,
  TAIL_LIMIT,
} from "./wire.js";

const IDLE_MS = 3_000; // no job, no connection: nothing to hold, so go away
const FIRST_CONNECT_MS = 10_000; // started but nobody came
const MAX_LINE = 16 * 1024 * 1024;
const MAX_BACKLOG = 32 * 1024 * 1024; // a client this far behind is not reading; drop it
const STOP_GRACE_MS = 2_000; // on SIGTERM, time for hung-up jobs to exit and get their exit.json
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

const home = process.argv[2] ?? "";
if (!home) {
  process.stderr.write("usage: host.js <ROOST_HOME>\n");
  process.exit(2);
}
const sockPath = path.join(home, "pty.sock");
const pidPath = path.join(home, "pty.pid");

function log(msg: string): void {
  process.stderr.write(`${new Date().toISOString()} pty-host[${process.pid}] ${msg}\n`);
}

interface Job {
  jobId: string;
  pid: number;
  pty: IPty | null; // null once exited
  tail: string;
  exit: ExitInfo | null;
}
interface Conn {
  sock: net.Socket;
  follows: Set<string>;
}
type Msg = Record<string, unknown>;

const jobs = new Map<string, Job>(); // live jobs, and exits the daemon has not forgotten yet
const conns = new Set<Conn>(); // insertion order: the last one is the daemon
let everConnected = false;
let stopping = false;
let idleTimer: NodeJS.Timeout | undefined;
const server = net.createServer(onConnection);

function daemon(): Conn | undefined {
  return [...conns].at(-1);
}

function send(conn: Conn, msg: HostMessage): void {
  if (conn.sock.destroyed) return;
  if (conn.sock.writableLength > MAX_BACKLOG) {
    log("dropping a client that stopped reading");
    conn.sock.destroy();
    return;
  }
  conn.sock.write(`${JSON.stringify(msg)}\n`);
}

function checkIdle(): void {
  clearTimeout(idleTimer);
  const live = [...jobs.values()].some((j) => j.pty);
  if (stopping || live || conns.size > 0) return;
  idleTimer = setTimeout(() => shutdown("idle"), everConnected ? IDLE_MS : FIRST_CONNECT_MS);
}

// ---- requests

function str(m: Msg, key: string): string {
  const v = m[key];
  if (typeof v !== "string") throw new Error(`${key} must be a string`);
  return v;
}
function dim(m: Msg, key: string): number {
  const v = m[key];
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 10_000) {
    throw new Error(`${key} must be a positive integer`);
  }
  return v;
}
function jobIdOf(m: Msg): string {
  const id = str(m, "jobId");
  // It names a directory under jobs/, so keep it to a safe file name.
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(id)) throw new Error(`bad jobId: ${id}`);
  return id;
}
function known(m: Msg): Job {
  const job = jobs.get(jobIdOf(m));
  if (!job) throw new Error(`no such job: ${String(m.jobId)}`);
  return job;
}
function live(m: Msg): Job & { pty: IPty } {
  const job = known(m);
  if (!job.pty) throw new Error(`job has exited: ${job.jobId}`);
  return job as Job & { pty: IPty };
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

function spawnJob(m: Msg): { pid: number } {
  const jobId = jobIdOf(m);
  const [file, cwd, cols, rows] = [str(m, "file"), str(m, "cwd"), dim(m, "cols"), dim(m, "rows")];
  const { args, env } = m;
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
    throw new Error("args must be strings");
  }
  if (typeof env !== "object" || env === null || !Object.values(env).every((v) => typeof v === "string")) {
    throw new Error("env must map names to strings");
  }
  if (jobs.get(jobId)?.pty) throw new Error(`job already live: ${jobId}`);
  if (!path.isAbsolute(cwd) || !fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`cwd not found: ${cwd}`);
  }
  const jobEnv = env as Record<string, string>;
  const resolved = resolveFile(file, jobEnv, cwd);
  if (!resolved) throw new Error(`command not found: ${file}`);

  const p = ptySpawn(resolved, args, { name: "xterm-256color", cwd, cols, rows, env: jobEnv });
  const job: Job = { jobId, pid: p.pid, pty: p, tail: "", exit: null };
  jobs.set(jobId, job); // replaces an unforgotten exit of an earlier run of this job
  // Always read: a pty nobody drains fills up and blocks the job.
  p.onData((data) => {
    job.tail += data;
    if (job.tail.length > 2 * TAIL_LIMIT) job.tail = job.tail.slice(-TAIL_LIMIT);
    for (const c of conns) if (c.follows.has(jobId)) send(c, { event: "output", jobId, data });
  });
  const slave = holdSlave(p);
  p.onExit(({ exitCode, signal }) => {
    if (slave !== null) fs.close(slave, () => {});
    onExit(job, { exitCode, signal: signal || null, at: new Date().toISOString() });
  });
  log(`spawned ${jobId} pid ${p.pid}: ${resolved}`);
  return { pid: p.pid };
}

// When a job's last slave fd closes, Linux can drop output still queued in the pty, so a job's
// final lines (often its error) went missing. Holding a slave fd of our own keeps the master
// readable until node-pty gives up on it (200 ms after the exit), by which time all is drained.
function holdSlave(p: IPty): number | null {
  const pts = (p as IPty & { ptsName?: string }).ptsName;
  try {
    return pts ? fs.openSync(pts, fs.constants.O_RDWR | fs.constants.O_NOCTTY) : null;
  } catch {
    return null; // the job may be gone already; then there is nothing left to lose
  }
}

function onExit(job: Job, exit: ExitInfo): void {
  job.pty = null;
  job.exit = exit;
  log(`job ${job.jobId} pid ${job.pid} exited code ${exit.exitCode} signal ${exit.signal}`);
  try {
    writeExitFile(job.jobId, exit);
  } catch (err) {
    log(`cannot write exit.json for ${job.jobId}: ${String(err)}`);
  }
  const d = daemon();
  if (d) send(d, { event: "exit", jobId: job.jobId, ...exit });
  checkIdle();
}

// Durable before the event goes out, so a daemon that crashes right now still finds it on disk.
function writeExitFile(jobId: string, exit: ExitInfo): void {
  const dir = path.join(home, "jobs", jobId);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.exit.json.${process.pid}.tmp`);
  const fd = fs.openSync(tmp, "w", 0o600);
  try {
    fs.writeSync(fd, `${JSON.stringify(exit)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path.join(dir, "exit.json"));
  const dfd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(dfd);
  } finally {
    fs.closeSync(dfd);
  }
}

function signalJob(job: Job, sig: string): void {
  try {
    process.kill(-job.pid, sig); // the job is a session leader, so its pid is its process group
  } catch {
    process.kill(job.pid, sig);
  }
}

const handlers: { [O in Op]: (conn: Conn, m: Msg) => OpResult<O> } = {
  hello: () => ({ pid: process.pid, version: PROTOCOL_VERSION }),
  spawn: (_c, m) => spawnJob(m),
  write: (_c, m) => {
    live(m).pty.write(str(m, "data"));
    return {};
  },
  resize: (_c, m) => {
    live(m).pty.resize(dim(m, "cols"), dim(m, "rows"));
    return {};
  },
  signal: (_c, m) => {
    const sig = str(m, "signal");
    if (!Object.hasOwn(osConstants.signals, sig)) throw new Error(`unknown signal: ${sig}`);
    signalJob(live(m), sig);
    return {};
  },
  list: () => {
    const all = [...jobs.values()];
    return {
      live: all.filter((j) => j.pty).map((j) => ({ jobId: j.jobId, pid: j.pid })),
      exited: all.flatMap((j) => (j.exit ? [{ jobId: j.jobId, ...j.exit }] : [])),
    };
  },
  forget: (_c, m) => {
    const job = jobs.get(jobIdOf(m));
    if (job?.pty) throw new Error(`job is live: ${job.jobId}`);
    if (job) jobs.delete(job.jobId);
    return {};
  },
  tail: (_c, m) => ({ data: known(m).tail.slice(-TAIL_LIMIT) }),
  follow: (c, m) => {
    const jobId = jobIdOf(m);
    if (m.on === true) c.follows.add(jobId);
    else c.follows.delete(jobId);
    return {};
  },
};

function onLine(conn: Conn, line: string): void {
  if (!line.trim()) return;
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    send(conn, { id: null, ok: false, error: "bad request: not JSON" });
    return;
  }
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    send(conn, { id: null, ok: false, error: "bad request: not an object" });
    return;
  }
  const msg = m as Msg;
  const id = typeof msg.id === "number" ? msg.id : null;
  try {
    const op = msg.op;
    if (typeof op !== "string" || !Object.hasOwn(handlers, op)) throw new Error(`unknown op: ${String(op)}`);
    const result = handlers[op as Op](conn, msg);
    send(conn, { ...result, id, ok: true } as HostMessage);
  } catch (err) {
    send(conn, { id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
}

function onConnection(sock: net.Socket): void {
  const conn: Conn = { sock, follows: new Set() };
  conns.add(conn);
  everConnected = true;
  checkIdle();
  sock.setEncoding("utf8");
  let buf = "";
  sock.on("data", (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      onLine(conn, line);
    }
    if (buf.length > MAX_LINE) {
      buf = "";
      send(conn, { id: null, ok: false, error: "bad request: line too long" });
    }
  });
  sock.on("error", (err) => log(`client error: ${err.message}`));
  sock.on("close", () => {
    conns.delete(conn);
    checkIdle();
  });
}

// ---- lifecycle

function shutdown(reason: string): void {
  if (stopping) return;
  stopping = true;
  log(`stopping: ${reason}`);
  // Unlink while still listening: a host starting now sees ours answer until the file is gone,
  // so it can never bind a socket that we would then remove.
  try {
    if (fs.readFileSync(pidPath, "utf8").trim() === String(process.pid)) {
      fs.rmSync(pidPath, { force: true });
      fs.rmSync(sockPath, { force: true });
    }
  } catch {
    // not ours or already gone
  }
  server.close();
  for (const c of conns) c.sock.destroy();
  // Hang up like a closing terminal would, then give jobs a moment so their exit.json gets written.
  for (const j of jobs.values()) if (j.pty) signalJob(j, "SIGHUP");
  const deadline = Date.now() + STOP_GRACE_MS;
  const poll = setInterval(() => {
    if (Date.now() > deadline || ![...jobs.values()].some((j) => j.pty)) {
      clearInterval(poll);
      process.exit(0);
    }
  }, 20);
}

function answersHello(timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(sockPath);
    const done = (yes: boolean) => {
      sock.destroy();
      clearTimeout(timer);
      resolve(yes);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on("connect", () => sock.write(`${JSON.stringify({ id: 0, op: "hello" })}\n`));
    sock.on("data", (d) => done(d.toString().includes('"ok":true')));
    sock.on("error", () => done(false));
  });
}

/**
 * Listens with the socket owner-only from its first moment. The umask is set only around the
 * listen: the jobs inherit this process's umask, and it must stay the user's own.
 */
function listen(): Promise<NodeJS.ErrnoException | null> {
  const umask = process.umask(0o177);
  return new Promise<NodeJS.ErrnoException | null>((resolve) => {
    server.once("error", resolve);
    server.listen(sockPath, () => {
      server.off("error", resolve);
      resolve(null);
    });
  }).finally(() => process.umask(umask));
}

async function main(): Promise<void> {
  // The client makes home; a host that finds it gone was started for a home since removed.
  if (!fs.statSync(home, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`no such home: ${home}`);
  for (let attempt = 0; ; attempt++) {
    if (fs.existsSync(sockPath)) {
      if (await answersHello(3_000)) {
        log("another pty host is running; exiting");
        process.exit(0);
      }
      fs.rmSync(sockPath, { force: true }); // stale: its host is gone
    }
    const err = await listen();
    if (!err) break;
    if (err.code !== "EADDRINUSE" || attempt >= 2) throw err;
  }
  server.on("error", (err) => log(`server error: ${err.message}`));
  fs.chmodSync(sockPath, 0o600);
  fs.writeFileSync(pidPath, `${process.pid}\n`, { mode: 0o600 });
  log(`listening on ${sockPath}`);
  checkIdle();
}

process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGHUP", () => {}); // detached: a closing terminal must not take the jobs with it
process.on("SIGINT", () => {});
// Crashing would close every job's terminal, so log and carry on instead.
process.on("uncaughtException", (err) => log(`uncaught: ${err.stack ?? err.message}`));
process.on("unhandledRejection", (err) => log(`unhandled rejection: ${String(err)}`));

main().catch((err: unknown) => {
  log(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
